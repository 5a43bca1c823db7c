/**
 * One transferable buffer holding a small JSON part and a list of byte parts, the format the
 * worker-thread hand-offs share (store/sqlite/unit-codec.ts to the SQLite writer,
 * ingest/digest-codec.ts to and from the digest threads): `postMessage` then moves one
 * ArrayBuffer instead of structured-cloning objects and strings.
 *
 * Layout: `u32le metaLength`, the meta as JSON, then each part as `u32le byteLength` and its
 * bytes (a string part is written as UTF-8).
 */

const U32 = 4

/** Writes `meta` as JSON and then each of `parts`, length-prefixed, into one ArrayBuffer. */
export function pack(meta: unknown, parts: readonly (string | Uint8Array)[]): ArrayBuffer {
  const json = JSON.stringify(meta)
  const metaBytes = Buffer.byteLength(json, 'utf8')
  const lengths = parts.map((p) =>
    typeof p === 'string' ? Buffer.byteLength(p, 'utf8') : p.byteLength,
  )
  const total = lengths.reduce((a, n) => a + U32 + n, U32 + metaBytes)
  const ab = new ArrayBuffer(total)
  const buf = Buffer.from(ab)
  buf.writeUInt32LE(metaBytes, 0)
  let off = U32 + buf.write(json, U32, 'utf8')
  parts.forEach((p, i) => {
    const n = lengths[i] ?? 0
    buf.writeUInt32LE(n, off)
    if (typeof p === 'string') buf.write(p, off + U32, n, 'utf8')
    else buf.set(p, off + U32)
    off += U32 + n
  })
  return ab
}

/** Reads what {@link pack} wrote: the meta and a view (no copy) of each part. */
export function unpack<M>(ab: ArrayBuffer): { meta: M; parts: Buffer[] } {
  const buf = Buffer.from(ab)
  const metaBytes = buf.readUInt32LE(0)
  const meta = JSON.parse(buf.toString('utf8', U32, U32 + metaBytes)) as M
  const parts: Buffer[] = []
  let off = U32 + metaBytes
  while (off + U32 <= buf.length) {
    const n = buf.readUInt32LE(off)
    if (off + U32 + n > buf.length) throw new Error('packed buffer: truncated part')
    parts.push(buf.subarray(off + U32, off + U32 + n))
    off += U32 + n
  }
  if (off !== buf.length) throw new Error(`packed buffer: ${buf.length - off} bytes left over`)
  return { meta, parts }
}
