import { normalizeEventId } from '../event/normalize.ts'

/** What a `/store/` body is, from a minimal read of it. */
export interface StoreBodyKind {
  /** `"type": "transaction"`: a transaction, not an error event. */
  transaction: boolean
  /** The body's own event id, if it has a valid one. */
  eventId: string | undefined
}

const NOT_TRANSACTION: StoreBodyKind = { transaction: false, eventId: undefined }

/**
 * Reads whether a decoded `/store/` body is a transaction. Old SDKs sent transactions to
 * `/store/` with `"type": "transaction"`; Relay puts those in a transaction item, not an event
 * item (relay-server `endpoints/store.rs`, "Old SDKs used to send transactions to the store
 * endpoint"), so they never become error issues. Only a body naming `"transaction"` at all is
 * parsed here; every other body goes to the digest unread, and a body that is not JSON is
 * left for the digest to reject.
 */
export function storeBodyKind(body: Buffer): StoreBodyKind {
  if (!body.includes('"transaction"')) return NOT_TRANSACTION
  let v: unknown
  try {
    v = JSON.parse(body.toString('utf8'))
  } catch {
    return NOT_TRANSACTION
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return NOT_TRANSACTION
  const event = v as Record<string, unknown>
  if (event['type'] !== 'transaction') return NOT_TRANSACTION
  return { transaction: true, eventId: normalizeEventId(event['event_id']) }
}
