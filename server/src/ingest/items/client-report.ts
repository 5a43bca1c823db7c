import { z } from 'zod'
import { parseTimestamp } from '../../event/normalize.ts'
import type { IngestContext } from '../context.ts'
import { discardCategory, discardReason } from './outcome-names.ts'

const DAY = 86_400_000
/** Reports dated further back than this (or in the future) are filed at receive time. */
const MAX_AGE_MS = 90 * DAY

/** One `discarded_events` entry as SDKs send it (protocol.md §6.5). */
const Discard = z.object({
  reason: z.string().min(1).max(200),
  category: z.string().min(1).max(64),
  quantity: z
    .number()
    .int()
    .min(0)
    .max(2 ** 32 - 1),
})

/** The parts of a client report we read; `rate_limited_events` & co. are Relay-only. */
const Report = z.object({
  timestamp: z.unknown().optional(),
  discarded_events: z.array(z.unknown()).max(10_000).optional(),
})

/** One parsed report: when it was made and what the SDK dropped. */
export interface ClientReport {
  /** When the drops happened, ms (clock-corrected, within the accepted range). */
  at: number
  discards: { reason: string; category: string; quantity: number }[]
}

/**
 * Reads a `client_report` payload, Relay's way: `discarded_events` become `client_discard`
 * counters by reason and category; entries with an over-long reason or a bad shape are skipped;
 * `rate_limited_events`, `filtered_events` and `filtered_sampling_events` are ignored (only
 * Relay may send them). The report's `timestamp` dates the counters, moved by `clockDrift` (ms,
 * the envelope's `sent_at` against the receive time, event/clock.ts: 0 unless the client clock
 * is off by 55 minutes or more); a time in the future or older than 90 days becomes the receive
 * time. Returns undefined for a payload that is no report.
 */
export function parseClientReport(
  payload: Buffer,
  received: number,
  clockDrift: number,
): ClientReport | undefined {
  let json: unknown
  try {
    json = JSON.parse(payload.toString('utf8'))
  } catch {
    return undefined
  }
  const report = Report.safeParse(json)
  if (!report.success) return undefined
  const discards: ClientReport['discards'] = []
  for (const raw of report.data.discarded_events ?? []) {
    const d = Discard.safeParse(raw)
    if (d.success && d.data.quantity > 0) discards.push(d.data)
  }
  let at = received
  const ts = parseTimestamp(report.data.timestamp)
  if (ts !== undefined) {
    at = ts * 1000 + clockDrift
    if (at > received || at < received - MAX_AGE_MS) at = received
  }
  return { at: Math.round(at), discards }
}

/**
 * `client_report` items: the SDK's own drop counters become `client_discard` outcomes of the
 * request's key, a reason or category that is not a known one counted as `other` / `unknown`
 * (outcome-names.ts). The item itself is counted `accepted` (category `internal`); a report that does
 * not parse is counted `rejected` / `invalid_client_report` and never fails the envelope, since
 * SDKs append reports to ordinary envelopes whose events must not be lost over it.
 */
export function handleClientReport(payload: Buffer, ctx: IngestContext, maxSize: number): void {
  if (payload.length > maxSize) {
    ctx.outcome('rejected', 'too_large', 'internal')
    return
  }
  const report = parseClientReport(payload, ctx.received, ctx.clockDrift)
  if (report === undefined) {
    ctx.outcome('rejected', 'invalid_client_report', 'internal')
    return
  }
  ctx.outcome('accepted', '', 'internal')
  for (const d of report.discards) {
    ctx.unit.outcomes.push({
      projectId: ctx.project.id,
      keyId: ctx.key.id,
      at: report.at,
      outcome: 'client_discard',
      reason: discardReason(d.reason),
      category: discardCategory(d.category),
      quantity: d.quantity,
    })
  }
}
