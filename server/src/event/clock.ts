import { BOUNDS } from './bounds.ts'
import { parseTimestamp } from './normalize.ts'
import type { NormalizedEvent } from './types.ts'

/** Latest an event may be dated after it arrived (Relay's default `max_secs_in_future`). */
export const MAX_SECS_IN_FUTURE = 60
/** Earliest an event may be dated before it arrived (Relay's default `max_secs_in_past`). */
export const MAX_SECS_IN_PAST = 30 * 24 * 3600
/**
 * The least a sender's clock must be off for its times to be corrected (Relay's
 * `MINIMUM_CLOCK_DRIFT`, 55 minutes): less is network latency or a clock a little off, more is
 * a wrong time zone or a clock set wrong.
 */
export const MIN_CLOCK_DRIFT_MS = 55 * 60_000

const iso = (s: number): string => new Date(Math.round(s * 1000)).toISOString()

/**
 * How far a sender's clock is behind the server's, in ms (negative: ahead), read from the
 * envelope header's `sent_at` (RFC 3339; Unix seconds are read too) against the receive time
 * `received` (ms); 0 when it is off by less than {@link MIN_CLOCK_DRIFT_MS}, and when `sent_at`
 * is missing or no time (Relay refuses such an envelope; here only its times stay as sent).
 * Read once per envelope; every client time in it (events, sessions, client reports) is moved
 * by it, as Relay's `ClockDriftProcessor` does.
 */
export function clockDrift(sentAt: unknown, received: number): number {
  if (sentAt === undefined || sentAt === null) return 0
  const s = parseTimestamp(sentAt)
  if (s === undefined) return 0
  const drift = received - Math.round(s * 1000)
  return Math.abs(drift) >= MIN_CLOCK_DRIFT_MS ? drift : 0
}

/**
 * Moves an event's other times by `by` seconds, as its own time moved: each breadcrumb's time
 * (dropped when the move would put it before 1970 or after 9999) and a `start_timestamp`, which
 * the normaliser leaves in `raw` with the other keys it does not know.
 */
function moveTimes(event: NormalizedEvent, by: number, raw?: Record<string, unknown>): void {
  for (const b of event.breadcrumbs?.values ?? []) {
    if (b.timestamp === undefined) continue
    const moved = b.timestamp + by
    if (moved > 0 && moved <= BOUNDS.maxTimestamp) b.timestamp = moved
    else delete b.timestamp
  }
  if (raw === undefined || !Object.hasOwn(raw, 'start_timestamp')) return
  const start = parseTimestamp(raw['start_timestamp'])
  if (start === undefined) return
  const moved = start + by
  if (moved > 0 && moved <= BOUNDS.maxTimestamp) raw['start_timestamp'] = moved
  else delete raw['start_timestamp']
}

/**
 * Corrects an SDK event's times for its sender's clock, as Relay does with the envelope's
 * `sent_at` (relay-server `event::finalize`, `ClockDriftProcessor` with `MINIMUM_CLOCK_DRIFT`):
 * the event's time, its breadcrumbs' and a `start_timestamp` move by `drift` seconds (received
 * minus `sent_at`: {@link clockDrift} / 1000; an event from a device 2 hours behind is dated
 * when it happened, not 2 hours back), and the event notes `clock_drift` with the time the client sent the envelope
 * (`sdk_time`) and the server's (`server_time`), as Relay's processing error does. An event
 * without a time of its own keeps the receive time the normaliser gave it. `received` is in
 * seconds. Runs before {@link boundEventTime}, which still bounds the corrected time.
 */
export function correctClockDrift(
  event: NormalizedEvent,
  drift: number,
  received: number,
  raw: Record<string, unknown>,
): void {
  if (drift === 0) return
  if (parseTimestamp(raw['timestamp']) !== undefined) event.timestamp += drift
  moveTimes(event, drift, raw)
  const note = {
    type: 'clock_drift',
    name: 'timestamp',
    sdk_time: iso(received - drift),
    server_time: iso(received),
  } as const
  event.errors = [...(event.errors ?? []), note]
}

/**
 * An event dated more than a minute after it arrived or more than 30 days before is dated when
 * it arrived, as Relay does (relay-event-normalization `normalize_timestamps` with its
 * `ClockDriftProcessor`): a device's wrong clock, or an old event sent again, would otherwise
 * sort it among events of another day. Its breadcrumbs (and a `start_timestamp` in `raw`) move
 * by the same amount, so they keep their order and distance to it, and the event notes
 * `future_timestamp` or `past_timestamp` with the time the client sent (`sdk_time`) and the
 * server's (`server_time`), as Relay's processing error does. `received` is in seconds. Client
 * events only: the server's own are dated by it. Runs after {@link correctClockDrift}.
 */
export function boundEventTime(
  event: NormalizedEvent,
  received: number,
  raw?: Record<string, unknown>,
): void {
  const sent = event.timestamp
  const type =
    sent > received + MAX_SECS_IN_FUTURE
      ? 'future_timestamp'
      : sent < received - MAX_SECS_IN_PAST
        ? 'past_timestamp'
        : undefined
  if (type === undefined) return
  event.timestamp = received
  moveTimes(event, received - sent, raw)
  const note = { type, name: 'timestamp', sdk_time: iso(sent), server_time: iso(received) } as const
  event.errors = [...(event.errors ?? []), note]
}
