import { ApiError } from '../errors.ts'
import { normalizeEventId } from '../event/normalize.ts'

/** An item header: `type` is required, everything else is optional and kept as sent. */
export interface ItemHeader {
  type: string
  length?: number
  [key: string]: unknown
}

/** One envelope item; the payload stays bytes until its handler decides how to read it. */
export interface EnvelopeItem {
  header: ItemHeader
  payload: Buffer
}

/** A parsed envelope (protocol.md §2). */
export interface Envelope {
  header: Record<string, unknown>
  items: EnvelopeItem[]
}

const LF = 0x0a

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09
}

function invalid(cause: string): ApiError {
  return new ApiError('invalid_envelope', 'invalid event envelope', [cause])
}

function parseJsonObject(buf: Buffer, what: string): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(buf.toString('utf8'))
  } catch {
    throw invalid(`invalid ${what}: not JSON`)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`invalid ${what}: not a JSON object`)
  }
  return value as Record<string, unknown>
}

/** Reads only the first line: enough to find the `dsn` credential before full parsing. */
export function parseEnvelopeHeader(body: Buffer): Record<string, unknown> {
  const end = body.indexOf(LF)
  return parseJsonObject(end === -1 ? body : body.subarray(0, end), 'envelope header')
}

function itemHeader(raw: Record<string, unknown>): ItemHeader {
  const type = raw['type']
  if (typeof type !== 'string' || type === '') throw invalid('invalid item header: missing type')
  const length = raw['length']
  if (length !== undefined && length !== null) {
    if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) {
      throw invalid('invalid item header: bad length')
    }
    return { ...raw, type, length }
  }
  const { length: _ignored, ...rest } = raw
  return { ...rest, type }
}

/**
 * Splits an envelope into header and items at the byte level: `length` when given, else up to
 * the next LF. Lenient where SDKs differ (trailing newline or not, blank lines between items,
 * trailing whitespace); strict where bytes would be misread (short payload, missing LF after a
 * sized payload).
 */
export function parseEnvelope(body: Buffer): Envelope {
  let end = body.length
  while (end > 0 && isWhitespace(body[end - 1])) end--
  if (end === 0) throw new ApiError('empty_body', 'empty request body')
  const headerEnd = body.indexOf(LF)
  const firstLineEnd = headerEnd === -1 || headerEnd > end ? end : headerEnd
  const header = parseJsonObject(body.subarray(0, firstLineEnd), 'envelope header')
  // Relay reads the header's `event_id` as an event id or refuses the envelope: a value that is
  // none would otherwise be replaced silently and the SDK told an id it never sent.
  const id = header['event_id']
  if (id !== undefined && id !== null && normalizeEventId(id) === undefined)
    throw invalid('invalid envelope header: event_id is not a UUID')
  const items: EnvelopeItem[] = []
  let pos = firstLineEnd + 1
  while (pos < end) {
    if (isWhitespace(body[pos])) {
      pos++
      continue
    }
    let lineEnd = body.indexOf(LF, pos)
    if (lineEnd === -1 || lineEnd > end) lineEnd = end
    const itemHead = itemHeader(parseJsonObject(body.subarray(pos, lineEnd), 'item header'))
    pos = Math.min(lineEnd + 1, body.length)
    let payload: Buffer
    if (itemHead.length !== undefined) {
      const payloadEnd = pos + itemHead.length
      // A sized payload may legitimately end in whitespace that the trim above removed.
      if (payloadEnd > body.length) throw invalid('unexpected end of file')
      payload = body.subarray(pos, payloadEnd)
      if (payloadEnd < body.length && body[payloadEnd] !== LF) {
        throw invalid('missing newline after header or payload')
      }
      pos = payloadEnd + 1
    } else if (pos >= end) {
      payload = Buffer.alloc(0)
    } else {
      let payloadEnd = body.indexOf(LF, pos)
      if (payloadEnd === -1 || payloadEnd > end) payloadEnd = end
      payload = body.subarray(pos, payloadEnd)
      pos = payloadEnd + 1
    }
    items.push({ header: itemHead, payload })
  }
  return { header, items }
}
