/**
 * A URL without its query and fragment, as Relay keeps them apart from `request.url` (in
 * `query_string` and `fragment`): what the culprit and the `url` tag show, so one route is one
 * value and a query's secrets stay out of both.
 */
export function withoutQuery(url: string): string {
  const end = url.search(/[?#]/)
  return end < 0 ? url : url.slice(0, end)
}
