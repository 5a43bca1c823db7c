import type { NormalizedEvent } from './types.ts'

/**
 * A header of the event's `request` by name (lower case), as SDKs send headers: an object or a
 * list of `[name, value]` pairs. Read by the inbound filters and the user-agent contexts.
 */
export function requestHeader(event: NormalizedEvent, name: string): string | undefined {
  const h = event.request?.['headers']
  if (Array.isArray(h)) {
    for (const pair of h)
      if (Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].toLowerCase() === name) {
        return typeof pair[1] === 'string' ? pair[1] : undefined
      }
    return undefined
  }
  if (h === null || typeof h !== 'object') return undefined
  for (const [k, v] of Object.entries(h))
    if (k.toLowerCase() === name) return typeof v === 'string' ? v : undefined
  return undefined
}
