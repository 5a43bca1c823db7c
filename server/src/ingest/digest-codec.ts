/**
 * How event items travel to the digest threads and their rows back (digest-pool.ts): one
 * transferred ArrayBuffer per batch each way, as the group commit's units travel to the SQLite
 * writer (store/sqlite/unit-codec.ts). The large part, each payload, crosses as raw bytes and
 * comes back in its stored form (store/payload-codec.ts), which the main thread hands on to the
 * writer as it is. Only the small fields go through JSON.
 *
 * Layout each way: `u32le metaLength`, the batch's small fields as JSON, then for each entry
 * in order `u32le byteLength` and its bytes.
 */
import type { EventToWrite } from '../store/types.ts'
import type { DigestScope } from './items/event.ts'

/** One event item to digest: its bytes, its request's scope, and the envelope header's id. */
export interface DigestJob {
  scope: DigestScope
  payload: Uint8Array
  headerId: string | undefined
}

/** A digest's result: the row to write, or the client error that refuses the whole request. */
export type DigestOutcome =
  | { row: EventToWrite }
  | { error: { code: string; detail: string; client: boolean } }

const U32 = 4

/** Writes `meta` as JSON and then each of `parts`, length-prefixed, into one ArrayBuffer. */
function pack(meta: unknown, parts: readonly (string | Uint8Array)[]): ArrayBuffer {
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
function unpack<M>(ab: ArrayBuffer): { meta: M; parts: Buffer[] } {
  const buf = Buffer.from(ab)
  const metaBytes = buf.readUInt32LE(0)
  const meta = JSON.parse(buf.toString('utf8', U32, U32 + metaBytes)) as M
  const parts: Buffer[] = []
  let off = U32 + metaBytes
  while (off < buf.length) {
    const n = buf.readUInt32LE(off)
    parts.push(buf.subarray(off + U32, off + U32 + n))
    off += U32 + n
  }
  if (off !== buf.length) throw new Error('digest batch: truncated entry')
  return { meta, parts }
}

type JobMeta = [
  projectId: number,
  keyId: number,
  component: string | null,
  received: number,
  headerId: string | null,
]

/** Packs a batch of jobs for a digest thread. */
export function encodeJobs(jobs: readonly DigestJob[]): ArrayBuffer {
  const meta: JobMeta[] = jobs.map((j) => [
    j.scope.project.id,
    j.scope.key.id,
    j.scope.key.component,
    j.scope.received,
    j.headerId ?? null,
  ])
  return pack(
    meta,
    jobs.map((j) => j.payload),
  )
}

/** Unpacks a batch of jobs in the digest thread. */
export function decodeJobs(ab: ArrayBuffer): DigestJob[] {
  const { meta, parts } = unpack<JobMeta[]>(ab)
  if (parts.length !== meta.length) throw new Error('digest batch: entries do not match')
  return meta.map(([projectId, keyId, component, received, headerId], i) => ({
    scope: { project: { id: projectId }, key: { id: keyId, component }, received },
    payload: parts[i] as Buffer,
    headerId: headerId ?? undefined,
  }))
}

type OutcomeMeta =
  | { row: Omit<EventToWrite, 'payload'> }
  | { error: { code: string; detail: string; client: boolean } }

/** Packs a batch's results in the digest thread: each row's payload travels as bytes. */
export function encodeOutcomes(outcomes: readonly DigestOutcome[]): ArrayBuffer {
  const parts: (string | Uint8Array)[] = []
  const meta: OutcomeMeta[] = outcomes.map((o) => {
    if ('error' in o) return o
    const { payload, ...row } = o.row
    parts.push(payload)
    return { row }
  })
  return pack(meta, parts)
}

/** Unpacks a batch's results on the main thread; payloads stay bytes (views, no copy). */
export function decodeOutcomes(ab: ArrayBuffer): DigestOutcome[] {
  const { meta, parts } = unpack<OutcomeMeta[]>(ab)
  let n = 0
  return meta.map((m) => {
    if ('error' in m) return m
    const payload = parts[n++]
    if (payload === undefined) throw new Error('digest batch: a row without its payload')
    // The parsed object becomes the row: no copy of its fields.
    const row = m.row as EventToWrite
    row.payload = payload
    return { row }
  })
}
