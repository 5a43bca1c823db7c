import { ApiError } from '../errors.ts'
import { encodePayload } from '../store/payload-codec.ts'
import type { DigestJob, DigestOutcome } from './digest-codec.ts'
import { digestPayload } from './items/event.ts'

/**
 * One job's outcome, whichever thread runs it (the main thread, a digest thread, the SQLite
 * writer): the row (with `encode`, its payload already in the stored form), the inbound filter
 * that dropped the event, or the error as
 * data — a client's ApiError refuses its request with a 4xx, anything else becomes the 500 a
 * crash on the main thread would have been.
 */
export function digestJob(
  job: DigestJob,
  encode: boolean,
  parsed?: Record<string, unknown>,
): DigestOutcome {
  try {
    const row = digestPayload(job.payload, job.scope, job.headerId, parsed)
    if ('filtered' in row) return row
    if (encode && typeof row.payload === 'string') row.payload = encodePayload(row.payload)
    return { row }
  } catch (err) {
    if (err instanceof ApiError)
      return { error: { code: err.code, detail: err.message, client: true } }
    const e = err instanceof Error ? err : new Error(String(err))
    return { error: { code: e.name, detail: e.stack ?? e.message, client: false } }
  }
}
