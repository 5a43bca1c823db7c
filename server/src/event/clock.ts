import { BOUNDS } from './bounds.ts'
import type { NormalizedEvent } from './types.ts'

/** Latest an event may be dated after it arrived (Relay's default `max_secs_in_future`). */
export const MAX_SECS_IN_FUTURE = 60
/** Earliest an event may be dated before it arrived (Relay's default `max_secs_in_past`). */
export const MAX_SECS_IN_PAST = 30 * 24 * 3600

const iso = (s: number): string => new Date(Math.round(s * 1000)).toISOString()

/**
 * An event dated more than a minute after it arrived or more than 30 days before is dated when
 * it arrived, as Relay does (relay-event-normalization `normalize_timestamps` with its
 * `ClockDriftProcessor`): a device's wrong clock, or an old event sent again, would otherwise
 * sort it among events of another day. Its breadcrumbs move by the same amount, so they keep
 * their order and distance to it, and the event notes `future_timestamp` or `past_timestamp`
 * with the time the client sent (`sdk_time`) and the server's (`server_time`), as Relay's
 * processing error does. `received` is in seconds. Client events only: the server's own are
 * dated by it.
 */
export function boundEventTime(event: NormalizedEvent, received: number): void {
  const sent = event.timestamp
  const type =
    sent > received + MAX_SECS_IN_FUTURE
      ? 'future_timestamp'
      : sent < received - MAX_SECS_IN_PAST
        ? 'past_timestamp'
        : undefined
  if (type === undefined) return
  const drift = received - sent
  event.timestamp = received
  for (const b of event.breadcrumbs?.values ?? []) {
    if (b.timestamp === undefined) continue
    const moved = b.timestamp + drift
    if (moved > 0 && moved <= BOUNDS.maxTimestamp) b.timestamp = moved
    else delete b.timestamp
  }
  const note = { type, name: 'timestamp', sdk_time: iso(sent), server_time: iso(received) } as const
  event.errors = [...(event.errors ?? []), note]
}
