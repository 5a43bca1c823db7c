import type { Worker } from 'node:worker_threads'
import { ApiError, ERRORS, type ErrorCode } from '../errors.ts'
import { spawnWorker } from '../spawn-worker.ts'
import type { DigestFailure } from '../store/types.ts'
import type { IngestContext } from './context.ts'
import { type DigestJob, type DigestOutcome, decodeOutcomes, encodeJobs } from './digest-codec.ts'
import { digestJob } from './digest-job.ts'
import type { DigestReply, DigestRequest } from './digest-worker.ts'

/** One digest thread and the batches it was sent and has not answered. */
interface Thread {
  worker: Worker
  waiting: Map<number, { resolve: (o: DigestOutcome[]) => void; reject: (e: Error) => void }>
  /** Jobs sent and not answered: the next batch goes to the least loaded thread. */
  load: number
}

/** The process's digest threads, shared by every app in it (tests build many), started on demand. */
const threads: (Thread | undefined)[] = []
/**
 * Jobs that go out at once instead of at the end of the loop turn: a digest thread that waits
 * for the whole turn idles while the main thread reads every request of a wave (50 connections
 * answered by one group commit come back together), so the three threads run one after the
 * other. Sending every 8 jobs lets them overlap (`npm run bench`, docs/ingest-hot-path.md).
 */
const FLUSH_AT = 8
let nextId = 1

function startThread(slot: number): Thread {
  const worker = spawnWorker(import.meta.url, 'digest-worker', undefined)
  const t: Thread = { worker, waiting: new Map(), load: 0 }
  const failAll = (err: Error): void => {
    for (const w of t.waiting.values()) w.reject(err)
    t.waiting.clear()
    t.load = 0
  }
  worker.on('message', (reply: DigestReply) => {
    const w = t.waiting.get(reply.id)
    if (w === undefined) return
    t.waiting.delete(reply.id)
    if (t.waiting.size === 0) {
      t.load = 0
      // Only batches in flight keep the process alive.
      worker.unref()
    }
    if ('failure' in reply) w.reject(new Error(`digest thread: ${reply.failure}`))
    else w.resolve(decodeOutcomes(reply.outcomes))
  })
  worker.on('error', failAll)
  worker.on('exit', () => {
    if (threads[slot] === t) threads[slot] = undefined
    failAll(new Error('a digest thread stopped'))
  })
  worker.unref()
  return t
}

/** Sends one batch to thread `slot` (started, or restarted, on demand). */
function send(slot: number, jobs: DigestJob[]): Promise<DigestOutcome[]> {
  let t = threads[slot]
  if (t === undefined) {
    t = startThread(slot)
    threads[slot] = t
  }
  const thread = t
  const id = nextId++
  const ab = encodeJobs(jobs)
  thread.load += jobs.length
  return new Promise((resolve, reject) => {
    thread.waiting.set(id, { resolve, reject })
    thread.worker.ref()
    thread.worker.postMessage({ id, jobs: ab } satisfies DigestRequest, [ab])
  })
}

interface Queued {
  jobs: DigestJob[]
  resolve: (o: DigestOutcome[]) => void
  reject: (e: Error) => void
}

/**
 * Runs the digest of event items — JSON parse, normalisation, grouping, serialisation, about
 * half of what an event costs the main thread (docs/ingest-hot-path.md) — on `size` worker
 * threads, so the main thread is left with HTTP and the group commit and both cores work.
 * The requests of one event-loop turn go out together, or every 8 jobs (one message per thread,
 * the work split by request across the threads), so a message's cost is shared as a group
 * commit's fsync is. The threads also compress the stored payload (store/payload-codec.ts).
 * With `size` 0 (`DIGEST_THREADS=0`, the default) requests leave the digest to the store's
 * write ({@link digestQueued}); `digest` then runs the jobs inline. A thread that dies fails its
 * batches (those requests answer 500, as a crash on the main thread would) and is restarted
 * for the next.
 */
export class DigestPool {
  readonly size: number
  #queue: Queued[] = []
  #queued = 0
  #scheduled = false

  constructor(size: number) {
    this.size = Math.max(0, Math.floor(size))
  }

  /** The outcomes of `jobs`, in order. */
  digest(jobs: DigestJob[]): Promise<DigestOutcome[]> {
    if (this.size === 0 || jobs.length === 0) {
      // On the main thread the store's writer compresses the payload.
      return Promise.resolve(jobs.map((j) => digestJob(j, false)))
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ jobs, resolve, reject })
      this.#queued += jobs.length
      if (this.#queued >= FLUSH_AT) {
        this.#flush()
        return
      }
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(() => {
          this.#scheduled = false
          this.#flush()
        })
      }
    })
  }

  /** Sends what this loop turn queued: each thread one batch, requests kept whole. */
  readonly #flush = (): void => {
    const queued = this.#queue
    if (queued.length === 0) return
    this.#queue = []
    this.#queued = 0
    const slots = Array.from({ length: this.size }, (_, i) => i).sort(
      (a, b) => (threads[a]?.load ?? 0) - (threads[b]?.load ?? 0),
    )
    const share = Math.ceil(queued.length / slots.length)
    slots.forEach((slot, k) => {
      const part = queued.slice(k * share, (k + 1) * share)
      if (part.length === 0) return
      send(
        slot,
        part.flatMap((q) => q.jobs),
      ).then(
        (outcomes) => {
          let n = 0
          for (const q of part) {
            q.resolve(outcomes.slice(n, n + q.jobs.length))
            n += q.jobs.length
          }
        },
        (err: Error) => {
          for (const q of part) q.reject(err)
        },
      )
    })
  }
}

/** Turns a digest thread's client error back into the ApiError it was. */
function clientError(code: string, detail: string): ApiError {
  const known = Object.hasOwn(ERRORS, code) ? (code as ErrorCode) : 'bad_request'
  return new ApiError(known, detail)
}

/**
 * Digests the event items a request's handlers queued. On digest threads (`DIGEST_THREADS` > 0)
 * it happens now and their rows join the request's unit in envelope order; the first item that
 * is not a valid event refuses the whole request, as a handler's error would. Otherwise the
 * items go into the unit as they are and the store's write digests them with the same rule
 * (ingest/digest-on-write.ts): on a SQLite file that is its writer thread, so the main thread
 * — the ingest bottleneck — is left with HTTP and framing (docs/ingest-hot-path.md).
 */
export async function digestQueued(ctx: IngestContext, pool: DigestPool): Promise<void> {
  if (ctx.digests.length === 0) return
  if (pool.size === 0) {
    ctx.unit.undigested = {
      projectId: ctx.project.id,
      keyId: ctx.key.id,
      component: ctx.key.component,
      received: ctx.received,
      clientIp: ctx.clientIp ?? null,
      privacy: ctx.privacy ?? null,
      items: ctx.digests.map((d) => ({ payload: d.payload, headerId: d.headerId ?? null })),
      ...(ctx.clockDrift !== 0 ? { clockDrift: ctx.clockDrift } : {}),
      ...(ctx.sourceMaps !== undefined ? { sourceMaps: ctx.sourceMaps } : {}),
    }
    return
  }
  const outcomes = await pool.digest(
    ctx.digests.map((d) => ({ scope: ctx, payload: d.payload, headerId: d.headerId })),
  )
  for (const o of outcomes) if ('error' in o) throw digestFailureError(o.error)
  for (const o of outcomes) {
    if ('row' in o) ctx.addEvent(o.row)
    else if ('filtered' in o) ctx.outcome('filtered', o.filtered, 'error')
  }
}

/**
 * The error a unit's failed digest answers with: a client's error as the ApiError it was (its
 * request gets the same 4xx as a handler's error), anything else as a server fault.
 */
export function digestFailureError(f: DigestFailure): Error {
  return f.client ? clientError(f.code, f.detail) : new Error(f.detail)
}
