import type { Worker } from 'node:worker_threads'
import { spawnWorker } from '../../spawn-worker.ts'
import type { ArtifactStore } from '../artifact-types.ts'
import type {
  IngestStore,
  PruneResult,
  RetentionStore,
  WriteUnit,
  WriteUnitResult,
} from '../types.ts'
import { encodeUnits } from './unit-codec.ts'

/**
 * A message to the writer thread; `db` names one open database file. A write's units come as
 * one transferred buffer (unit-codec.ts), not cloned objects.
 */
export type WriterRequest =
  | {
      type: 'open'
      id: number
      db: number
      path: string
      digestModule?: string | undefined
      sourceMapCacheBytes?: number | undefined
    }
  | { type: 'write'; id: number; db: number; units: ArrayBuffer }
  | { type: 'close'; id: number; db: number }
  | { type: 'prune'; id: number; db: number; cutoff: number; limit: number }

/**
 * The digest the writer thread runs in front of each write of a database opened with a
 * `digestModule`: the module at that URL, imported on the writer thread, exports this. The
 * ingest layer provides it (`ingest/digest-on-write.ts`); the store only receives its URL, so
 * it imports nothing above itself.
 */
export interface WriterDigest {
  writeDigested(
    units: WriteUnit[],
    write: (units: WriteUnit[]) => Promise<WriteUnitResult[]>,
    sourceMaps?: WriterSourceMaps,
  ): Promise<WriteUnitResult[]>
}

/**
 * What the digest on the writer thread resolves source maps with: the artifact lookups on the
 * writer's own connection (no round trip to the main thread) and the bytes its cache of parsed
 * maps may hold (`SOURCE_MAP_CACHE_MB`).
 */
export interface WriterSourceMaps {
  artifacts: ArtifactStore
  cacheBytes: number
}

/** The writer thread's answer to one request: the results, or the error that rolled it back. */
export type WriterReply =
  | { id: number; results: WriteUnitResult[] }
  | { id: number; pruned: PruneResult }
  | { id: number; error: { message: string; name: string; code: string } }

/** What a request resolves with: a write's results, or a retention batch's counts. */
type Answer = WriteUnitResult[] | PruneResult

interface Waiting {
  resolve: (r: Answer) => void
  reject: (e: Error) => void
}

/** The one writer thread of this process and what it has been asked and not yet answered. */
interface Writer {
  worker: Worker
  waiting: Map<number, Waiting>
  /** Database ids opened in this worker (a restarted worker opens them again). */
  opened: Set<number>
  /** Its busy time as last read, ms (kept for when it has exited). */
  busyMs: number
}

let writer: Writer | undefined
/** Busy time of writer threads that stopped, ms (a restarted thread counts from zero). */
let pastBusyMs = 0
let nextId = 1
let nextDb = 1

function startWriter(): Writer {
  const worker = spawnWorker(import.meta.url, 'ingest-worker', undefined)
  const w: Writer = { worker, waiting: new Map(), opened: new Set(), busyMs: 0 }
  const failAll = (err: Error): void => {
    for (const entry of w.waiting.values()) entry.reject(err)
    w.waiting.clear()
  }
  worker.on('message', (reply: WriterReply) => {
    const entry = w.waiting.get(reply.id)
    if (entry === undefined) return
    w.waiting.delete(reply.id)
    // Only requests in flight keep the process alive.
    if (w.waiting.size === 0) worker.unref()
    if ('results' in reply) entry.resolve(reply.results)
    else if ('pruned' in reply) entry.resolve(reply.pruned)
    else entry.reject(Object.assign(new Error(reply.error.message), reply.error))
  })
  worker.on('error', failAll)
  worker.on('exit', () => {
    if (writer === w) writer = undefined
    pastBusyMs += w.busyMs
    failAll(new Error('the ingest writer thread stopped'))
  })
  worker.unref()
  return w
}

/**
 * Seconds the writer thread(s) of this process have spent running (not waiting for work),
 * read from the thread's event-loop utilisation; for `/metrics`, whose rate() of it is the
 * thread's busy share.
 */
export function writerBusySeconds(): number {
  const w = writer
  if (w !== undefined) {
    try {
      w.busyMs = w.worker.performance.eventLoopUtilization().active
    } catch {
      // An exiting thread has no loop to read: its last reading stands.
    }
  }
  return (pastBusyMs + (w?.busyMs ?? 0)) / 1000
}

/** Sends one request to the writer thread (started, or restarted, on demand). */
function request<T extends Answer>(msg: WriterRequest): Promise<T> {
  writer ??= startWriter()
  const w = writer
  return new Promise<T>((resolve, reject) => {
    w.waiting.set(msg.id, { resolve: (r) => resolve(r as T), reject })
    w.worker.ref()
    if (msg.type === 'write') w.worker.postMessage(msg, [msg.units])
    else w.worker.postMessage(msg)
  })
}

/**
 * The ingest write path of a SQLite file store, run in a worker thread (one per process, one
 * connection per file) with the connection settings of the main thread: WAL and
 * `synchronous=FULL`. Each group commit is one message and its promise resolves once that
 * transaction committed, so a 200 still means "on disk". Meanwhile the main thread keeps
 * reading and digesting requests instead of blocking on statements and fsync, and the next
 * group gathers. Reads stay on the main connection (WAL: they see every commit). A writer that
 * dies fails the requests in flight; the next write starts a new one. With `digestModule` (a
 * module URL exporting {@link WriterDigest}) the thread also digests the units' undigested
 * events before writing them.
 */
export function sqliteIngestThread(
  path: string,
  digestModule?: string,
  sourceMapCacheBytes?: number,
): IngestStore & RetentionStore & { close(): Promise<void> } {
  const db = nextDb++
  let closed = false
  const ensureOpen = (): void => {
    writer ??= startWriter()
    if (writer.opened.has(db)) return
    writer.opened.add(db)
    // Fails with the writes queued behind it, which report the error.
    request({ type: 'open', id: nextId++, db, path, digestModule, sourceMapCacheBytes }).catch(
      () => undefined,
    )
  }
  ensureOpen()
  return {
    write: (units) => {
      if (closed) return Promise.reject(new Error('the store is closed'))
      ensureOpen()
      return request<WriteUnitResult[]>({
        type: 'write',
        id: nextId++,
        db,
        units: encodeUnits(units),
      })
    },
    // Retention batches queue behind the group commits in flight and run between them, on the
    // writer's connection: the thread that serves requests never runs their deletes or fsync.
    pruneBefore: (cutoff, limit) => {
      if (closed) return Promise.reject(new Error('the store is closed'))
      ensureOpen()
      return request<PruneResult>({ type: 'prune', id: nextId++, db, cutoff, limit })
    },
    close: async () => {
      if (closed) return
      closed = true
      const w = writer
      if (w === undefined || !w.opened.has(db)) return
      // The idle thread stays (unreferenced: it keeps no process alive) for the next store.
      await request({ type: 'close', id: nextId++, db }).catch(() => undefined)
      w.opened.delete(db)
    },
  }
}
