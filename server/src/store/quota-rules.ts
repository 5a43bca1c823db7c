import type { EventToWrite, Quota, UnitQuota } from './model.ts'

/** Re-exported for the ingest path, which reads a unit's quota answer. */
export type { UnitQuota }

/** A project's current quota window as stored (`quota_windows`). */
export interface QuotaWindow {
  /** Start of the window, ms. */
  start: number
  /** The window length it was opened with, s (a changed length opens a new window). */
  seconds: number
  /** Events charged in it. */
  used: number
  /** An event was refused in it: answers announce the limit until it ends. */
  limited: boolean
}

/**
 * Charges one unit's new events (duplicates were taken out before: a resend of a stored event
 * costs nothing) against a project's quota, in order, at the unit's receive time: a window
 * starts with the first event after the previous one ended (or when the quota's length
 * changed), events beyond the quota in the window are refused. Pure: SQLite folds its units
 * through this inside its one writer's transaction; PostgreSQL's reservation statement
 * (postgres/quota-reservation.ts) applies the same rule atomically and a test runs both side
 * by side, so the count is exact whichever node receives the events.
 */
export function chargeQuota(
  quota: Quota,
  window: QuotaWindow | undefined,
  now: number,
  fresh: number,
): { window: QuotaWindow; granted: number; unit: UnitQuota } {
  const ms = quota.windowSeconds * 1000
  let w: QuotaWindow =
    window === undefined || window.seconds !== quota.windowSeconds || now >= window.start + ms
      ? { start: now, seconds: quota.windowSeconds, used: 0, limited: false }
      : { ...window }
  const granted = Math.max(0, Math.min(fresh, quota.events - w.used))
  const refused = fresh - granted
  w = { ...w, used: w.used + granted, limited: w.limited || refused > 0 }
  return { window: w, granted, unit: { refused, windowEnd: w.start + ms, limited: w.limited } }
}

/** The `over_quota` outcome of a unit's refused events (counted in the ingest transaction). */
export function overQuotaOutcome(e: EventToWrite, refused: number) {
  return {
    projectId: e.projectId,
    keyId: e.keyId,
    at: e.received,
    outcome: 'over_quota',
    reason: 'quota_exceeded',
    category: 'error',
    quantity: refused,
  }
}

/**
 * Charges a unit's events in order: `isFresh` says which are new (not stored before, not a
 * copy of an earlier one in the group); those beyond the quota get `keep: false`, the rest
 * (and every duplicate, which costs nothing) are written as usual.
 */
export function admitEvents(
  quota: Quota,
  window: QuotaWindow | undefined,
  events: readonly EventToWrite[],
  isFresh: (e: EventToWrite, index: number) => boolean,
): { window: QuotaWindow; keep: boolean[]; unit: UnitQuota } {
  const fresh = events.map((e, i) => isFresh(e, i))
  const now = events[0]?.received ?? 0
  const charged = chargeQuota(quota, window, now, fresh.filter(Boolean).length)
  let left = charged.granted
  // A later copy of a refused event is refused with it (it would otherwise be stored free).
  const refusedIds = new Set<string>()
  let refused = 0
  const keep = events.map((e, i) => {
    if (fresh[i] === true && left > 0) {
      left--
      return true
    }
    if (fresh[i] === true || refusedIds.has(e.eventId)) {
      refusedIds.add(e.eventId)
      refused++
      return false
    }
    return true
  })
  return { window: charged.window, keep, unit: { ...charged.unit, refused } }
}

/**
 * What one reservation granted a project (PostgreSQL reserves before the ingest transaction,
 * see postgres/quota-reservation.ts): at most what fitted in the window, by chargeQuota's rule.
 */
export interface Reservation {
  /** Events granted (the first `granted` of the project's units, in unit order). */
  granted: number
  /** The window they were charged in: a give-back only touches this window. */
  start: number
  seconds: number
  /** The window's `limited` flag as the reservation found it (settled after the commit). */
  limited: boolean
}

/**
 * Decides, after a reservation, which events of one project's units are written: the first
 * `granted` new events (`isFresh`: its id was claimed now) in unit order are; a new event
 * beyond them is refused, and so is a later copy of a refused one, while a resend of an event
 * stored before stays a free duplicate, as with the in-transaction charge (the reservation
 * asked for every event, so it granted at least what that charge would have). Returns per
 * unit the keep mask and the refused count, and how many granted events were stored (the
 * rest of the grant is given back after the commit).
 */
export function admitReserved(
  units: readonly (readonly EventToWrite[])[],
  granted: number,
  isFresh: (unit: number, index: number) => boolean,
): { keep: boolean[][]; refused: number[]; used: number } {
  let left = granted
  let used = 0
  const refusedIds = new Set<string>()
  const keep: boolean[][] = []
  const refused: number[] = []
  for (const [u, events] of units.entries()) {
    let r = 0
    keep.push(
      events.map((e, i) => {
        const fresh = isFresh(u, i)
        if (fresh && left > 0) {
          left--
          used++
          return true
        }
        if (fresh || refusedIds.has(e.eventId)) {
          refusedIds.add(e.eventId)
          r++
          return false
        }
        return true
      }),
    )
    refused.push(r)
  }
  return { keep, refused, used }
}
