import { createHash } from 'node:crypto'
import type { IngestContext } from '../ingest/context.ts'
import { digestClientEvent } from '../ingest/items/event.ts'
import type { EventToWrite } from '../store/types.ts'
import type { OtlpLogRecord, OtlpLogsRequest } from './decode.ts'
import { isErrorSeverity } from './severity.ts'
import { recordToEvent } from './to-event.ts'

/** What one export request turned into, before quota and commit. */
export interface LogsDigest {
  /** Error records as event rows, in request order. */
  events: EventToWrite[]
  /** Records below error severity: counted and dropped. */
  dropped: number
  /** Error records refused because their event exceeds the event size limit. */
  tooLarge: number
  /** Error records an inbound filter dropped, by reason (outcome `filtered`). */
  filtered: string[]
}

/**
 * The event id of an error record, stable across retries of the same export (OTLP exporters
 * resend the same bytes after a 429 or 5xx), so a resent record is deduplicated by the store's
 * (project, event_id) idempotency instead of counted twice. A record carrying the semantic
 * convention `log.record.uid` is identified by it; otherwise by the request bytes and the
 * record's position in them.
 */
export function recordEventId(
  record: OtlpLogRecord,
  requestDigest: string,
  position: number,
): string {
  const uid = record.attributes['log.record.uid']
  const seed =
    typeof uid === 'string' && uid !== '' ? `log.record.uid:${uid}` : `${requestDigest}:${position}`
  return createHash('sha256').update(seed).digest('hex').slice(0, 32)
}

/** SHA-256 of the decoded request body, the base of {@link recordEventId}. */
export function requestDigest(body: Buffer): string {
  return createHash('sha256').update(body).digest('hex')
}

/**
 * Sorts the records of an export: error severity → an event digested exactly like an SDK's
 * (normalised, grouped, row built), everything else counted. Nothing is written here.
 */
export function digestLogs(
  request: OtlpLogsRequest,
  ctx: IngestContext,
  opts: { maxEvent: number; requestDigest: string },
): LogsDigest {
  const out: LogsDigest = { events: [], dropped: 0, tooLarge: 0, filtered: [] }
  let position = 0
  for (const { resource, scopes } of request.resources) {
    for (const { scope, records } of scopes) {
      for (const record of records) {
        const here = position++
        if (!isErrorSeverity(record.severityNumber, record.severityText)) {
          out.dropped++
          continue
        }
        const eventId = recordEventId(record, opts.requestDigest, here)
        const raw = recordToEvent({ resource, scope, record }, { eventId, received: ctx.received })
        if (Buffer.byteLength(JSON.stringify(raw)) > opts.maxEvent) {
          out.tooLarge++
          continue
        }
        const r = digestClientEvent(raw, ctx, eventId, true)
        if ('filtered' in r) out.filtered.push(r.filtered)
        else out.events.push(r.row)
      }
    }
  }
  return out
}
