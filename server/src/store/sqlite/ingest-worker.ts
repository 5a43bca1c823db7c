/**
 * The ingest writer thread (see ingest-thread.ts): holds one connection per open database file
 * and runs each group commit's transaction — statements and fsync — off the main thread, after
 * the digest of the units' undigested events by the digest module the store was opened with
 * (`WriterDigest`: the ingest layer's ingest/digest-on-write.ts, passed as a URL).
 */
import { parentPort } from 'node:worker_threads'
import { artifactQueries } from '../queries/artifacts.ts'
import type { IngestStore, RetentionStore, WriteUnit, WriteUnitResult } from '../types.ts'
import { openConnection } from './connection.ts'
import { sqliteIngest } from './ingest.ts'
import type { WriterDigest, WriterReply, WriterRequest, WriterSourceMaps } from './ingest-thread.ts'
import { sqliteRetention } from './retention.ts'
import { sqlitePort } from './sql-port.ts'
import { decodeUnits } from './unit-codec.ts'

const port = parentPort
if (port === null) throw new Error('ingest-worker.ts runs as a worker thread')
const stores = new Map<
  number,
  {
    close: () => void
    ingest: IngestStore
    retention: RetentionStore
    /** The injected digest (absent: the units arrive digested). */
    digest: Promise<WriterDigest> | undefined
    /** Source-map lookups on this connection, for the digest's resolution. */
    sourceMaps: WriterSourceMaps
  }
>()

/** Writes units that must arrive digested; one that does not is a wiring error, not data loss. */
function writeAsSent(
  units: WriteUnit[],
  write: (units: WriteUnit[]) => Promise<WriteUnitResult[]>,
): Promise<WriteUnitResult[]> {
  if (units.some((u) => u.undigested !== undefined)) {
    return Promise.reject(new Error('undigested events reached a writer opened without a digest'))
  }
  return write(units)
}
/** Why a database could not be opened: its writes fail with that, not with "not open". */
const failedOpens = new Map<number, unknown>()

const reply = (msg: WriterReply): void => port.postMessage(msg)

/**
 * Answers a write and gives its units' buffer back (transferred, nothing copied): the main
 * thread frees it at its next scavenge, every few milliseconds under load, where kept here it
 * waited for this thread's rarer collections. Under `npm run bench` peak RSS went over 250 MiB
 * (the main thread's malloc heap ~50 MiB larger) in 6 of 22 runs before, 2 of 20 after, both
 * times in slower runs (docs/benchmark.md, "Peak RSS spikes"). Nothing reads the buffer after
 * the write.
 */
const replyGivingBack = (msg: WriterReply, units: ArrayBuffer): void =>
  port.postMessage(msg, [units])
const failure = (id: number, err: unknown): WriterReply => {
  const e = err instanceof Error ? err : new Error(String(err))
  const code = (e as { code?: unknown }).code
  return {
    id,
    error: { message: e.message, name: e.name, code: typeof code === 'string' ? code : '' },
  }
}

port.on('message', (msg: WriterRequest) => {
  try {
    if (msg.type === 'open') {
      try {
        const db = openConnection(msg.path)
        stores.set(msg.db, {
          close: () => db.close(),
          ingest: sqliteIngest(db),
          retention: sqliteRetention(db),
          digest:
            msg.digestModule === undefined
              ? undefined
              : (import(msg.digestModule) as Promise<WriterDigest>),
          sourceMaps: {
            artifacts: artifactQueries(sqlitePort(db)),
            cacheBytes: msg.sourceMapCacheBytes ?? 128 * 1024 * 1024,
          },
        })
      } catch (err) {
        failedOpens.set(msg.db, err)
        throw err
      }
      reply({ id: msg.id, results: [] })
    } else if (msg.type === 'close') {
      stores.get(msg.db)?.close()
      stores.delete(msg.db)
      failedOpens.delete(msg.db)
      reply({ id: msg.id, results: [] })
    } else {
      const store = stores.get(msg.db)
      if (store === undefined) {
        throw failedOpens.get(msg.db) ?? new Error(`database ${msg.db} is not open in the writer`)
      }
      if (msg.type === 'prune') {
        store.retention.pruneBefore(msg.cutoff, msg.limit).then(
          (pruned) => reply({ id: msg.id, pruned }),
          (err: unknown) => reply(failure(msg.id, err)),
        )
        return
      }
      // Undigested events are digested here, beside the thread that serves HTTP.
      const units = decodeUnits(msg.units)
      const digest = store.digest
      const written =
        digest === undefined
          ? writeAsSent(units, store.ingest.write)
          : digest.then((d) => d.writeDigested(units, store.ingest.write, store.sourceMaps))
      written.then(
        (results) => replyGivingBack({ id: msg.id, results }, msg.units),
        (err: unknown) => replyGivingBack(failure(msg.id, err), msg.units),
      )
    }
  } catch (err) {
    reply(failure(msg.id, err))
  }
})
