/**
 * A digest thread (see digest-pool.ts): parses, normalises, groups and serialises the event
 * items it is sent, so the main thread is left with HTTP and the group commit.
 */
import { parentPort } from 'node:worker_threads'
import { decodeJobs, encodeOutcomes } from './digest-codec.ts'
import { digestJob } from './digest-job.ts'

/** A batch to digest (`jobs`: digest-codec.ts), answered under the same `id`. */
export interface DigestRequest {
  id: number
  jobs: ArrayBuffer
}

/** The answer to one batch: its outcomes, or why the batch itself could not be read. */
export type DigestReply = { id: number; outcomes: ArrayBuffer } | { id: number; failure: string }

const port = parentPort
if (port === null) throw new Error('digest-worker.ts runs as a worker thread')

port.on('message', (msg: DigestRequest) => {
  let reply: DigestReply
  try {
    // Compressed here, beside the main thread, instead of on the writer thread.
    const outcomes = decodeJobs(msg.jobs).map((job) => digestJob(job, true))
    const ab = encodeOutcomes(outcomes)
    // The jobs' buffer goes back too: the main thread frees it at its next scavenge, where here
    // it would wait for this thread's rarer collections (store/sqlite/ingest-worker.ts).
    port.postMessage({ id: msg.id, outcomes: ab } satisfies DigestReply, [ab, msg.jobs])
    return
  } catch (err) {
    reply = { id: msg.id, failure: err instanceof Error ? (err.stack ?? err.message) : String(err) }
  }
  port.postMessage(reply)
})
