/**
 * The module name Sentry derives for a JavaScript file it was served or bundled from
 * (`https:`, `webpack:`, `app:` URLs), which its culprit writes instead of the URL:
 * `https://shop.example/static/js/app.4f3a9c1e.min.js` → `app`, `webpack:///./src/Bomb.jsx` →
 * `src/Bomb`. The path without its extension (and `.min`), from the segment after a full content
 * hash if there is one, else without leading folders that name no code (`static/`, `js/`,
 * `build/`, `node_modules/`, version and hash folders, `.`/`_`/`~` folders) and a trailing
 * commit-ish (`-4f3a9c1`). Undefined for other paths (a Node file on disk keeps its own name).
 */
export function webJsModule(url: string | undefined): string | undefined {
  if (url === undefined) return undefined
  const scheme = /^(?:https?|webpack|app):/i.exec(url)
  if (scheme === null) return undefined
  let rest = url.slice(scheme[0].length)
  // The authority (`//host`), as a URL parser reads it: up to the path's first slash.
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2)
    rest = slash < 0 ? '' : rest.slice(slash)
  }
  const end = rest.search(/[?#]/)
  let path = end < 0 ? rest : rest.slice(0, end)
  const dot = path.lastIndexOf('.')
  if (dot > path.lastIndexOf('/') + 1) path = path.slice(0, dot)
  if (path.endsWith('.min')) path = path.slice(0, -4)
  const tokens = path.split('/')
  const hashAt = tokens.findIndex((t) => FULL_HASH.test(t))
  if (hashAt >= 0) return tokens.slice(hashAt + 1).join('/') || UNKNOWN_MODULE
  return path.replace(LEADING, '').replace(TRAILING_COMMITISH, '') || UNKNOWN_MODULE
}

/** What Sentry writes when nothing of the path is left. */
const UNKNOWN_MODULE = '<unknown module>'
/** A path segment that starts a content hash (md5 or sha1): the module is what follows. */
const FULL_HASH = /^(?:[a-f0-9]{32}|[a-f0-9]{40}$)/i
/** Leading slashes and folders that name no code. */
const LEADING =
  /^(?:\/|(?:(?:java)?scripts?|js|build|static|node_modules|bower_components|[_.~][^/]*|v?(?:\d+\.)*\d+|[a-f0-9]{7,8}|[a-f0-9]{32}|[a-f0-9]{40})\/)+/i
/** A build's commit-ish at the end of a file name (`app-4f3a9c1e`). */
const TRAILING_COMMITISH = /[-.][a-f0-9]{7,}$/i
