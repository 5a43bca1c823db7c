/**
 * Folding release-health rollup rows into counts, shared by the SQLite and PostgreSQL stores
 * (their SQL differs, what a row adds up to must not).
 */
import {
  type HealthCounts,
  SESSION_CATEGORIES,
  type SessionCategory,
} from '../release-health-types.ts'

/** Sums of one range's hourly rollups, per session state. */
export interface CountRow {
  sessions: number
  healthy: number
  errored: number
  unhandled: number
  abnormal: number
  crashed: number
}

/** Zero sessions and users in every state. */
export const emptyCounts = (): HealthCounts => ({
  sessions: { total: 0, healthy: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 },
  users: { total: 0, healthy: 0, errored: 0, unhandled: 0, abnormal: 0, crashed: 0 },
})

/** Adds a rollup sum to the session counts. */
export function addSessions(into: HealthCounts, r: CountRow): void {
  into.sessions.total += r.sessions
  for (const c of SESSION_CATEGORIES) into.sessions[c] += r[c]
}

/** Adds `n` users whose worst state is `category` (its index in SESSION_CATEGORIES). */
export function addUsers(into: HealthCounts, category: number, n: number): void {
  const c: SessionCategory | undefined = SESSION_CATEGORIES[category]
  if (c === undefined) return
  into.users[c] += n
  into.users.total += n
}
