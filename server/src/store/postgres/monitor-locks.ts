import type { CheckInToWrite } from '../monitor-types.ts'
import { type Db, run } from './db.ts'

/** The lock keys of check-ins' monitors, `project/slug`, distinct and sorted. */
export const monitorLockKeys = (checkIns: readonly CheckInToWrite[]): string[] =>
  [...new Set(checkIns.map((ci) => `${ci.projectId}/${ci.slug}`))].sort()

/**
 * Serialises the check-ins of the given monitors with every other transaction's until commit:
 * one transaction-scoped advisory lock per (project, slug), taken in sorted order so two
 * groups never wait on each other in a cycle. Without it, the `ok` of a run (no config)
 * committed while the `in_progress` that creates the monitor was still open found no monitor
 * and was refused (`monitor_not_found`), though answered 200: reading `monitors` does not
 * wait for an uncommitted insert, and the environment's `FOR UPDATE` came too late. Reads
 * after the lock see whatever the holder committed (READ COMMITTED takes a snapshot per
 * statement). A hash collision of two slugs only serialises them too. SQLite needs no such
 * lock: one writer applies every group in turn.
 */
export async function lockMonitors(c: Db, checkIns: readonly CheckInToWrite[]): Promise<void> {
  for (const key of monitorLockKeys(checkIns))
    await run(c, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key])
}
