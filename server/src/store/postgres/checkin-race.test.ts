import pg from 'pg'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import type { CheckInToWrite } from '../monitor-types.ts'
import type { Store } from '../store.ts'
import { openPostgresStore } from './index.ts'

// The two check-ins of one run (in_progress with the monitor's config, then ok without it)
// sent by a stock SDK without waiting for the first answer land in two group commits that
// PostgreSQL runs at once. These cases hold the first transaction open at a known point (a
// table lock taken by the test) and commit the second meanwhile, so the interleaving that
// lost the `ok` run is forced instead of hoped for.

let db: TestDatabase | undefined
const stores: Store[] = []
const clients: pg.Client[] = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.end()))
  await Promise.all(stores.splice(0).map((s) => s.close()))
  await db?.drop()
  db = undefined
})

const T0 = Date.UTC(2026, 0, 1, 12, 0)
const RUN = 'c'.repeat(32)

async function setup() {
  db = await createTestDatabase()
  const store = await openPostgresStore(db.url, { poolSize: 4 })
  stores.push(store)
  const { project, key } = await store.createProject('P', 'p', 'a'.repeat(32))
  const blocker = new pg.Client(db.url)
  // pg_stat_activity is read once per transaction: the observer reads it outside the lock's.
  const observer = new pg.Client(db.url)
  await Promise.all([blocker.connect(), observer.connect()])
  clients.push(blocker, observer)
  const checkIn = (over: Partial<CheckInToWrite>): CheckInToWrite => ({
    projectId: project.id,
    keyId: key.id,
    received: T0,
    checkInId: RUN,
    freshId: 'f'.repeat(32),
    slug: 'job',
    status: 'in_progress',
    environment: 'production',
    durationMs: null,
    release: null,
    traceId: null,
    config: undefined,
    ...over,
  })
  const write = (ci: CheckInToWrite) => store.write([{ events: [], outcomes: [], checkIns: [ci] }])
  // Runs `first` until it waits on the test's lock of monitor_checkins (it then holds every
  // row it wrote before, uncommitted), commits `second`, then lets `first` finish.
  const interleave = async (first: CheckInToWrite, second: CheckInToWrite) => {
    await blocker.query('BEGIN')
    await blocker.query('LOCK TABLE monitor_checkins IN EXCLUSIVE MODE')
    const a = write(first)
    await until(
      async () => (await waitingOnLocks(observer)) === 1,
      'the first never reached the run insert',
    )
    let done = false
    const b = write(second).finally(() => {
      done = true
    })
    // The second either waits for the first (a lock: the fix) or commits (the lost run).
    await until(
      async () => done || (await waitingOnLocks(observer)) === 2,
      'the second neither waited nor finished',
    )
    await blocker.query('COMMIT')
    await Promise.all([a, b])
  }
  const runs = async () => {
    const m = await store.getMonitor(project.id, 'job')
    if (m === undefined) return []
    return (await store.listCheckIns(m.id, {}, { limit: 10 })).checkIns.map((c) => c.status)
  }
  return { checkIn, write, interleave, runs }
}

/** Backends of this database waiting for a lock (heavyweight or advisory). */
async function waitingOnLocks(c: pg.Client): Promise<number> {
  const r = await c.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND wait_event_type = 'Lock'`,
  )
  return r.rows[0]?.n ?? 0
}

async function until(cond: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(what)
    await new Promise((r) => setTimeout(r, 10))
  }
}
const config: CheckInToWrite['config'] = {
  ok: true,
  config: { schedule: { type: 'interval', value: 10, unit: 'minute' }, checkinMargin: 2 },
}

describe('check-ins of one run committed at once on PostgreSQL', { timeout: 30_000 }, () => {
  it('an ok committed while the in_progress that creates the monitor is open closes the run', async () => {
    const { checkIn, interleave, runs } = await setup()
    await interleave(
      checkIn({ status: 'in_progress', config }),
      checkIn({ status: 'ok', received: T0 + 1500, durationMs: 1500 }),
    )
    expect(await runs()).toEqual(['ok'])
  })

  it('an in_progress committed while the ok of an existing monitor is open never reopens it', async () => {
    const { checkIn, write, interleave, runs } = await setup()
    await write(checkIn({ checkInId: 'b'.repeat(32), status: 'ok', config }))
    await interleave(
      checkIn({ status: 'ok', received: T0 + 1500, durationMs: 1500 }),
      checkIn({ status: 'in_progress' }),
    )
    expect((await runs()).sort()).toEqual(['ok', 'ok'])
  })

  it('an ok committed while the in_progress of an existing monitor is open closes the run', async () => {
    const { checkIn, write, interleave, runs } = await setup()
    await write(checkIn({ checkInId: 'b'.repeat(32), status: 'ok', config }))
    await interleave(
      checkIn({ status: 'in_progress' }),
      checkIn({ status: 'ok', received: T0 + 1500, durationMs: 1500 }),
    )
    expect((await runs()).sort()).toEqual(['ok', 'ok'])
  })
})
