/**
 * How event items travel to the digest threads and their rows back (digest-pool.ts): one
 * transferred ArrayBuffer per batch each way, as the group commit's units travel to the SQLite
 * writer (store/sqlite/unit-codec.ts). The large part, each payload, crosses as raw bytes and
 * comes back in its stored form (store/payload-codec.ts), which the main thread hands on to the
 * writer as it is. Only the small fields go through JSON.
 *
 * Layout each way: length-prefixed.ts, the batch's small fields as the meta, the payloads as
 * the parts.
 */
import { pack, unpack } from '../length-prefixed.ts'
import { readSettingsTable, SettingsTable, settingsAt } from '../privacy/settings-wire.ts'
import type { EventToWrite } from '../store/types.ts'
import { type DigestScope, digestScope } from './items/event.ts'

/** One event item to digest: its bytes, its request's scope, and the envelope header's id. */
export interface DigestJob {
  scope: DigestScope
  payload: Uint8Array
  headerId: string | undefined
}

/**
 * A digest's result: the row to write, the inbound filter that dropped the event (counted as
 * outcome `filtered`, nothing stored), or the client error that refuses the whole request.
 */
export type DigestOutcome =
  | { row: EventToWrite }
  | { filtered: string }
  | { error: { code: string; detail: string; client: boolean } }

type JobMeta = [
  projectId: number,
  keyId: number,
  component: string | null,
  received: number,
  headerId: string | null,
  clientIp: string | null,
  /** The index of the job's privacy settings in the batch's table (privacy/settings-wire.ts). */
  privacy: number,
  /** The sender's clock drift, ms (DigestScope `clockDrift`); 0: none. */
  clockDrift: number,
]

interface JobsMeta {
  jobs: JobMeta[]
  privacy: (string | null)[]
}

/** Packs a batch of jobs for a digest thread. */
export function encodeJobs(jobs: readonly DigestJob[]): ArrayBuffer {
  const privacy = new SettingsTable()
  const meta: JobMeta[] = jobs.map((j) => [
    j.scope.project.id,
    j.scope.key.id,
    j.scope.key.component,
    j.scope.received,
    j.headerId ?? null,
    j.scope.clientIp ?? null,
    privacy.ref(j.scope.privacy),
    j.scope.clockDrift ?? 0,
  ])
  const batch: JobsMeta = { jobs: meta, privacy: privacy.texts }
  return pack(
    batch,
    jobs.map((j) => j.payload),
  )
}

/** Unpacks a batch of jobs in the digest thread. */
export function decodeJobs(ab: ArrayBuffer): DigestJob[] {
  const { meta, parts } = unpack<JobsMeta>(ab)
  if (parts.length !== meta.jobs.length) throw new Error('digest batch: entries do not match')
  const table = readSettingsTable(meta.privacy)
  return meta.jobs.map(
    ([projectId, keyId, component, received, headerId, clientIp, p, drift], i) => ({
      scope: digestScope(
        projectId,
        keyId,
        component,
        received,
        clientIp,
        settingsAt(table, p),
        drift,
      ),
      payload: parts[i] as Buffer,
      headerId: headerId ?? undefined,
    }),
  )
}

type OutcomeMeta =
  | { row: Omit<EventToWrite, 'payload'> }
  | { filtered: string }
  | { error: { code: string; detail: string; client: boolean } }

/** Packs a batch's results in the digest thread: each row's payload travels as bytes. */
export function encodeOutcomes(outcomes: readonly DigestOutcome[]): ArrayBuffer {
  const parts: (string | Uint8Array)[] = []
  const meta: OutcomeMeta[] = outcomes.map((o) => {
    if ('error' in o || 'filtered' in o) return o
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
    if ('error' in m || 'filtered' in m) return m
    const payload = parts[n++]
    if (payload === undefined) throw new Error('digest batch: a row without its payload')
    // The parsed object becomes the row: no copy of its fields.
    const row = m.row as EventToWrite
    row.payload = payload
    return { row }
  })
}
