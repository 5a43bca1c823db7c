/**
 * The stored form of an event's payload (the normalised event JSON), shared by both backends:
 * raw deflate with a preset dictionary of the strings SDK events repeat, behind a one-byte
 * format tag. The bench's 3 KB Node error event is stored in 289 bytes instead of 3,028
 * (docs/storage-size.md).
 * Node 20's zlib has no zstd (native zstd packages need prebuilt binaries); its deflate takes a
 * preset dictionary too, which is what makes a payload this small compress: 1,413 bytes
 * without one.
 *
 * Formats (first byte of the stored bytes):
 * - `0x01`: deflate-raw with preset dictionary v1 (payload-dictionary-v1.ts).
 * - `0x7b` (`{`): the JSON itself as UTF-8, for a payload compression does not shrink, and what
 *   a PostgreSQL TEXT row becomes when the column turns `bytea`.
 * - A string (an SQLite row written before the codec, `TEXT`): the JSON itself.
 * A new dictionary gets a new tag beside these; a released one never changes.
 */
import { inflateRawSync } from 'node:zlib'
import { PAYLOAD_DICTIONARY_V1_BASE64 } from './payload-dictionary-v1.ts'
import { ReusableDeflate } from './reusable-deflate.ts'

const DEFLATE_DICT_V1 = 0x01
const PLAIN_JSON = 0x7b

/** The v1 dictionary's bytes; payload-codec.test.ts pins their hash. */
export const PAYLOAD_DICTIONARY_V1 = Buffer.from(PAYLOAD_DICTIONARY_V1_BASE64, 'base64')

/**
 * zlib level 3, by measurement on the bench event (interleaved, 41 × 300 calls on the loaded
 * 2-core machine, fastest round): level 1 311 bytes in 15.6 µs, level 3 289 bytes in 15.9 µs,
 * level 6 280 bytes in 21.7 µs, level 9 279 bytes in 21.6 µs. The level is the encoder's
 * choice only: any level decodes the same way, so it can change without a new format tag.
 */
const LEVEL = 3

/** This thread's compressor (the main thread and the SQLite writer each have their own). */
const deflater = new ReusableDeflate({ level: LEVEL, dictionary: PAYLOAD_DICTIONARY_V1 })

/** A stored payload this server cannot read (an unknown format tag, corrupt deflate data). */
export class PayloadUnreadableError extends Error {
  override name = 'PayloadUnreadableError'
}

/** Encodes a payload for the `events.payload` column of either backend. */
export function encodePayload(json: string): Buffer {
  const raw = Buffer.from(json, 'utf8')
  const out = deflater.deflate(raw, DEFLATE_DICT_V1)
  return out.length >= raw.length && raw[0] === PLAIN_JSON ? raw : out
}

/**
 * Decodes what `encodePayload` wrote, or a legacy plain-JSON row. Throws
 * {@link PayloadUnreadableError} for anything else.
 */
export function decodePayload(stored: string | Uint8Array): string {
  if (typeof stored === 'string') return stored
  const buf = Buffer.isBuffer(stored)
    ? stored
    : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength)
  const tag = buf[0]
  if (tag === PLAIN_JSON) return buf.toString('utf8')
  if (tag === DEFLATE_DICT_V1) {
    try {
      return inflateRawSync(buf.subarray(1), { dictionary: PAYLOAD_DICTIONARY_V1 }).toString('utf8')
    } catch (err) {
      throw new PayloadUnreadableError(
        `stored payload is corrupt: ${err instanceof Error ? err.message : String(err)}`,
      )
    }
  }
  throw new PayloadUnreadableError(
    tag === undefined
      ? 'stored payload is empty'
      : `stored payload has an unknown format (first byte 0x${tag.toString(16).padStart(2, '0')}): written by a newer server?`,
  )
}

/**
 * The payload JSON a reader shows: the decoded one, or for a row this server cannot decode an
 * event holding only a processing error (Sentry's `errors` list, type `payload_unreadable`),
 * so one bad row shows as such on its page instead of failing the request with a 500.
 */
export function readStoredPayload(stored: string | Uint8Array): string {
  try {
    return decodePayload(stored)
  } catch (err) {
    if (!(err instanceof PayloadUnreadableError)) throw err
    return JSON.stringify({ errors: [{ type: 'payload_unreadable', reason: err.message }] })
  }
}
