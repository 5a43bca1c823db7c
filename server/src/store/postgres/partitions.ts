import type pg from 'pg'
import { all, run } from './db.ts'

const DAY = 86_400_000
/** Days of partitions kept ready ahead of today, so a node that sweeps rarely never falls behind. */
export const PARTITION_DAYS_AHEAD = 7
const NAME = /^events_d(\d{4})(\d{2})(\d{2})$/

/** The partition of `events` holding the UTC day that starts at `dayStart` (ms). */
function partitionName(dayStart: number): string {
  return `events_d${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`
}

/** The day a partition name stands for, as [start, end) in ms; undefined for other tables. */
function dayOf(name: string): [number, number] | undefined {
  const m = NAME.exec(name)
  if (m === null) return undefined
  const start = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return [start, start + DAY]
}

/** The daily partitions `events` has now. */
async function partitions(pool: pg.Pool): Promise<string[]> {
  const rows = await all<{ name: string }>(
    pool,
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'events'::regclass`,
  )
  return rows.map((r) => r.name).filter((n) => NAME.test(n))
}

/**
 * Creates the daily partitions of `events` from today to {@link PARTITION_DAYS_AHEAD} days
 * ahead. Creating one scans the DEFAULT partition for rows of its day, which stays cheap
 * because new events land in daily partitions; a day the DEFAULT partition already has rows
 * for (the clock jumped) is left to it, and another node creating the same partition first
 * is no error.
 */
export async function ensurePartitions(pool: pg.Pool, now: number): Promise<void> {
  const have = new Set(await partitions(pool))
  const today = Math.floor(now / DAY) * DAY
  for (let d = 0; d <= PARTITION_DAYS_AHEAD; d++) {
    const start = today + d * DAY
    if (have.has(partitionName(start))) continue
    await createDayPartition(pool, start).catch(() => undefined)
  }
}

/**
 * Creates the partition of `events` for the UTC day starting at `dayStart` (ms), named as
 * retention expects. Exported for tools that load old data (the bench's `--retention` fill).
 */
export async function createDayPartition(pool: pg.Pool, dayStart: number): Promise<void> {
  await run(
    pool,
    `CREATE TABLE IF NOT EXISTS ${partitionName(dayStart)} PARTITION OF events FOR VALUES FROM (${dayStart}) TO (${dayStart + DAY})`,
  )
}

/**
 * Drops the daily partitions whose whole day is before `cutoff` and returns how many events
 * they held: one short catalog change instead of deleting their rows one batch at a time
 * under ingest. The drop waits at most 2 s for its lock (then the next sweep tries again), so
 * ingest never queues behind it for longer. Rows of older days in the DEFAULT partition and of
 * the day the cutoff falls in go by the batched deletes.
 */
export async function dropPartitionsBefore(pool: pg.Pool, cutoff: number): Promise<number> {
  let removed = 0
  for (const name of await partitions(pool)) {
    const day = dayOf(name)
    if (day === undefined || day[1] > cutoff) continue
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
      await client.query("SET LOCAL lock_timeout = '2s'")
      const { rows } = await client.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${name}`)
      await client.query(`DROP TABLE IF EXISTS ${name}`)
      await client.query('COMMIT')
      removed += rows[0]?.n ?? 0
    } catch {
      await client.query('ROLLBACK').catch(() => undefined)
    } finally {
      client.release()
    }
  }
  return removed
}
