import type { NormalizedEvent } from './types.ts'

/**
 * A header by name (lower case) from headers as SDKs send them: an object or a list of
 * `[name, value]` pairs, the name in any letter case. Read by the request's normalisation.
 */
export function headerOf(headers: unknown, name: string): string | undefined {
  if (Array.isArray(headers)) {
    for (const pair of headers)
      if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].toLowerCase() === name) {
        return typeof pair[1] === 'string' ? pair[1] : undefined
      }
    return undefined
  }
  if (headers === null || typeof headers !== 'object') return undefined
  for (const [k, v] of Object.entries(headers))
    if (k.toLowerCase() === name) return typeof v === 'string' ? v : undefined
  return undefined
}

/** A header of the event's `request` ({@link headerOf}): the inbound filters, user-agent contexts. */
export function requestHeader(event: NormalizedEvent, name: string): string | undefined {
  return headerOf(event.request?.['headers'], name)
}
