/**
 * Takes items and event fields out of a Sentry envelope: what a server that silently drops them
 * would have stored. Only for the negative check of the conformance rows (`strip-proxy.ts`):
 * a cell that passes through this must fail, or it does not test what it claims.
 */

/** What to take out: item types (`session`, `sessions`, …) and top-level fields of events. */
export interface StripRules {
  items: ReadonlySet<string>
  eventFields: ReadonlySet<string>
}

/** The envelope without the dropped parts, and a list of what was dropped. */
export interface Stripped {
  body: Buffer
  dropped: string[]
}

const NL = 0x0a
const NEWLINE = Buffer.from('\n')

function lineEnd(body: Buffer, from: number): number {
  const at = body.indexOf(NL, from)
  return at === -1 ? body.length : at
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

/** Removes `fields` from an event payload; the payload unchanged when it is not a JSON object. */
function stripEvent(payload: Buffer, fields: ReadonlySet<string>, dropped: string[]): Buffer {
  const event = parseObject(payload.toString('utf8'))
  if (event === undefined) return payload
  let changed = false
  for (const field of fields) {
    if (field in event) {
      delete event[field]
      dropped.push(`event.${field}`)
      changed = true
    }
  }
  return changed ? Buffer.from(JSON.stringify(event)) : payload
}

/**
 * Rewrites an envelope. Items keep their order and headers (`length` recomputed where the
 * payload changed); a body that is not an envelope comes back unchanged.
 */
export function stripEnvelope(body: Buffer, rules: StripRules): Stripped {
  const dropped: string[] = []
  const headerEnd = lineEnd(body, 0)
  const parts: Buffer[] = [body.subarray(0, headerEnd)]
  let at = headerEnd + 1
  while (at < body.length) {
    const itemHeaderEnd = lineEnd(body, at)
    const headerText = body.subarray(at, itemHeaderEnd).toString('utf8')
    if (headerText.trim() === '') {
      at = itemHeaderEnd + 1
      continue
    }
    const header = parseObject(headerText)
    if (header === undefined) return { body, dropped: [] }
    const start = itemHeaderEnd + 1
    const length = typeof header['length'] === 'number' ? header['length'] : undefined
    const end = length === undefined ? lineEnd(body, start) : Math.min(start + length, body.length)
    let payload = body.subarray(start, end)
    at = end + 1
    const type = typeof header['type'] === 'string' ? header['type'] : ''
    if (rules.items.has(type)) {
      dropped.push(type)
      continue
    }
    if ((type === 'event' || type === 'transaction') && rules.eventFields.size > 0) {
      payload = stripEvent(payload, rules.eventFields, dropped)
      if (length !== undefined) header['length'] = payload.length
    }
    parts.push(Buffer.from(JSON.stringify(header)), payload)
  }
  const joined: Buffer[] = []
  for (const [i, part] of parts.entries()) {
    if (i > 0) joined.push(NEWLINE)
    joined.push(part)
  }
  return { body: Buffer.concat(joined), dropped }
}

/** The legacy store endpoint's body: one event. */
export function stripStoreEvent(body: Buffer, rules: StripRules): Stripped {
  const dropped: string[] = []
  return { body: stripEvent(body, rules.eventFields, dropped), dropped }
}
