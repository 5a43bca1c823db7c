import type {
  DigestFailure,
  EventToWrite,
  IngestStore,
  OutcomeDelta,
  WriteUnit,
  WriteUnitResult,
} from '../store/types.ts'
import { digestJob } from './digest-job.ts'
import { digestScope } from './items/event.ts'

/**
 * Digests every unit's `undigested` event items in place (their rows appended to `events`, in
 * item order; an event an inbound filter dropped becomes a `filtered` outcome) and returns each unit's failure: the first item of a unit that is not a valid
 * event fails that whole unit (its request is refused, as a handler's error would), and the
 * unit is left as it was. Pure but for the units; runs wherever the write runs.
 */
export function digestUnits(units: readonly WriteUnit[]): (DigestFailure | undefined)[] {
  return units.map((u) => {
    const todo = u.undigested
    if (todo === undefined) return undefined
    const scope = digestScope(
      todo.projectId,
      todo.keyId,
      todo.component,
      todo.received,
      todo.clientIp,
      todo.privacy,
    )
    const rows: EventToWrite[] = []
    const filtered: OutcomeDelta[] = []
    for (const item of todo.items) {
      // Text payloads: the store's insert compresses them (store/rows/issues.ts).
      const o = digestJob(
        { scope, payload: item.payload, headerId: item.headerId ?? undefined },
        false,
      )
      if ('error' in o) return o.error
      if ('filtered' in o) {
        // Dropped by an inbound filter: no row, so no quota charge; counted, never stored.
        filtered.push({
          projectId: todo.projectId,
          keyId: todo.keyId,
          at: todo.received,
          outcome: 'filtered',
          reason: o.filtered,
          category: 'error',
          quantity: 1,
        })
        continue
      }
      rows.push(o.row)
    }
    for (const row of rows) u.events.push(row)
    for (const f of filtered) u.outcomes.push(f)
    u.undigested = undefined
    return undefined
  })
}

/**
 * This module's URL: the SQLite writer thread imports it to digest before its writes
 * (`openStore(config, { digestModule })`; it satisfies `WriterDigest` of
 * store/sqlite/ingest-thread.ts with {@link writeDigested}).
 */
export const DIGEST_ON_WRITE_MODULE: string = import.meta.url

/**
 * Digests the units (above), writes those that digested with `write` in one call, and answers
 * every unit in order: a failed one with `refused` and nothing written.
 */
export async function writeDigested(
  units: WriteUnit[],
  write: (units: WriteUnit[]) => Promise<WriteUnitResult[]>,
): Promise<WriteUnitResult[]> {
  const failures = digestUnits(units)
  if (failures.every((f) => f === undefined)) return write(units)
  const written = await write(units.filter((_, i) => failures[i] === undefined))
  let n = 0
  return units.map((_, i) => {
    const refused = failures[i]
    if (refused !== undefined) return { events: [], refused }
    const r = written[n++]
    if (r === undefined) throw new Error('store returned fewer results than units')
    return r
  })
}

/**
 * A store whose writes run on the calling thread (PostgreSQL, an in-memory SQLite) with the
 * digest of undigested events in front of them; a store that digests on its own writer thread
 * (`digestsOnWriter`) is returned as it is.
 */
export function digestingStore(store: IngestStore): IngestStore {
  if (store.digestsOnWriter === true) return store
  return { write: (units) => writeDigested(units, (u) => store.write(u)) }
}
