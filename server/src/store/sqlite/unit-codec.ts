/**
 * How a group commit's units travel to the SQLite writer thread: one ArrayBuffer per group,
 * transferred (moved, not copied) with `postMessage`. Structured-cloning the row objects cost
 * the main thread — the ingest bottleneck — about 7 % of its time under `npm run bench`
 * (V8 CPU profile: `postMessage`); this encoding writes the large part, each event's payload
 * string, as raw UTF-8 bytes, and only the small row fields go through `JSON.stringify`.
 *
 * Layout: `u32le metaLength`, the units as JSON with every event payload emptied, then for each
 * event in unit order `u32le byteLength` and the payload's UTF-8 bytes.
 *
 * A payload already in its stored form (bytes, from the digest threads) is copied as it is and
 * arrives as bytes.
 *
 * Units are plain JSON data (store/types.ts: strings, finite numbers, booleans, null, arrays and
 * objects), so JSON keeps them as they are. Payloads come from `JSON.stringify`, which never
 * emits a lone surrogate (it escapes them), so the UTF-8 round trip is exact.
 */
import type { WriteUnit } from '../types.ts'

const U32 = 4

/** Encodes a group's units into one transferable ArrayBuffer (see the module comment). */
export function encodeUnits(units: readonly WriteUnit[]): ArrayBuffer {
  const payloads: (string | Uint8Array)[] = []
  const lengths: number[] = []
  let payloadBytes = 0
  const stripped = units.map((u) => ({
    ...u,
    events: u.events.map((e) => {
      const n =
        typeof e.payload === 'string' ? Buffer.byteLength(e.payload, 'utf8') : e.payload.byteLength
      payloads.push(e.payload)
      lengths.push(n)
      payloadBytes += U32 + n
      // The stripped payload says which form follows: '' text, 'b' stored bytes.
      return { ...e, payload: typeof e.payload === 'string' ? '' : 'b' }
    }),
  }))
  const meta = JSON.stringify(stripped)
  const metaBytes = Buffer.byteLength(meta, 'utf8')
  const ab = new ArrayBuffer(U32 + metaBytes + payloadBytes)
  const buf = Buffer.from(ab)
  buf.writeUInt32LE(metaBytes, 0)
  let off = U32 + buf.write(meta, U32, 'utf8')
  payloads.forEach((p, i) => {
    const n = lengths[i] ?? 0
    buf.writeUInt32LE(n, off)
    if (typeof p === 'string') buf.write(p, off + U32, n, 'utf8')
    else buf.set(p, off + U32)
    off += U32 + n
  })
  return ab
}

/** Decodes what `encodeUnits` wrote, restoring every event's payload. */
export function decodeUnits(ab: ArrayBuffer): WriteUnit[] {
  const buf = Buffer.from(ab)
  const metaBytes = buf.readUInt32LE(0)
  const units = JSON.parse(buf.toString('utf8', U32, U32 + metaBytes)) as WriteUnit[]
  let off = U32 + metaBytes
  for (const u of units) {
    for (const e of u.events) {
      const n = buf.readUInt32LE(off)
      e.payload =
        e.payload === 'b'
          ? buf.subarray(off + U32, off + U32 + n)
          : buf.toString('utf8', off + U32, off + U32 + n)
      off += U32 + n
    }
  }
  if (off !== buf.length) throw new Error(`encoded units: ${buf.length - off} bytes left over`)
  return units
}
