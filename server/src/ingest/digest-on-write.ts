import type { WriterSourceMaps } from '../store/sqlite/ingest-thread.ts'
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
import { SourceMapResolver } from './source-maps/resolver.ts'

/** An undigested item parsed (and its frames resolved) before the digest, by the item. */
type Parsed = Map<object, Record<string, unknown>>

/**
 * Digests every unit's `undigested` event items in place (their rows appended to `events`, in
 * item order; an event an inbound filter dropped becomes a `filtered` outcome) and returns each unit's failure: the first item of a unit that is not a valid
 * event fails that whole unit (its request is refused, as a handler's error would), and the
 * unit is left as it was. Pure but for the units; runs wherever the write runs.
 */
export function digestUnits(
  units: readonly WriteUnit[],
  parsed?: Parsed,
): (DigestFailure | undefined)[] {
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
      todo.clockDrift,
    )
    const rows: EventToWrite[] = []
    const filtered: OutcomeDelta[] = []
    for (const item of todo.items) {
      // Text payloads: the store's insert compresses them (store/rows/issues.ts).
      const o = digestJob(
        { scope, payload: item.payload, headerId: item.headerId ?? undefined },
        false,
        parsed?.get(item),
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

/** The writer thread's resolver per database it writes (each with its own connection). */
const writerResolvers = new WeakMap<object, SourceMapResolver>()

function writerResolver(w: WriterSourceMaps): SourceMapResolver {
  let r = writerResolvers.get(w.artifacts)
  if (r === undefined) {
    r = new SourceMapResolver(w.artifacts, {
      maxBytes: w.cacheBytes,
      // The writer thread has no request logger; a failed lookup leaves the frames as they came.
      log: { warn: (obj, msg) => console.warn(msg, obj) },
    })
    writerResolvers.set(w.artifacts, r)
  }
  return r
}

/**
 * Parses the undigested items of units marked for source maps and resolves their frames, so
 * their digest takes the parsed event instead of parsing the bytes (see `resolveParsed`).
 */
async function resolveMarked(units: readonly WriteUnit[], resolver: SourceMapResolver) {
  const parsed: Parsed = new Map()
  for (const u of units) {
    const todo = u.undigested
    if (todo?.sourceMaps === undefined) continue
    for (const item of todo.items) {
      const event = await resolver.resolveParsed(todo.projectId, item.payload, todo.sourceMaps)
      if (event !== undefined) parsed.set(item, event)
    }
  }
  return parsed
}

/**
 * Digests the units (above), writes those that digested with `write` in one call, and answers
 * every unit in order: a failed one with `refused` and nothing written. Units marked for
 * source maps get their frames resolved first, with `sourceMaps`: the lookups on the writer
 * thread's connection, or the app's resolver where the write runs on the main thread.
 */
export async function writeDigested(
  units: WriteUnit[],
  write: (units: WriteUnit[]) => Promise<WriteUnitResult[]>,
  sourceMaps?: WriterSourceMaps | SourceMapResolver,
): Promise<WriteUnitResult[]> {
  const marked =
    sourceMaps !== undefined && units.some((u) => u.undigested?.sourceMaps !== undefined)
  const parsed = marked
    ? await resolveMarked(
        units,
        sourceMaps instanceof SourceMapResolver ? sourceMaps : writerResolver(sourceMaps),
      )
    : undefined
  const failures = digestUnits(units, parsed)
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
export function digestingStore(store: IngestStore, sourceMaps?: SourceMapResolver): IngestStore {
  if (store.digestsOnWriter === true) return store
  return { write: (units) => writeDigested(units, (u) => store.write(u), sourceMaps) }
}
