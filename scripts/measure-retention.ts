// Measures ingest throughput on the SQLite store while a retention sweep deletes old events,
// against the same ingest without a sweep (docs/postgresql.md "Retention").
// Run: npx tsx scripts/measure-retention.ts [oldEvents=200000]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sweepRetention } from '../server/src/store/retention.ts'
import { openSqliteStore } from '../server/src/store/sqlite/index.ts'
import type { EventToWrite } from '../server/src/store/types.ts'

const DAY = 86_400_000
const old = Number(process.argv[2] ?? 200_000)
const dir = mkdtempSync(join(tmpdir(), 'ingest-retention-'))
const store = await openSqliteStore(join(dir, 'ingest.sqlite'))
const { project, key } = await store.createProject('M', 'm', 'a'.repeat(32))
let seq = 0
const event = (received: number): EventToWrite => ({
  projectId: project.id,
  keyId: key.id,
  eventId: (++seq).toString(16).padStart(32, '0'),
  timestamp: received,
  received,
  level: 'error',
  title: 't',
  culprit: 'c',
  type: 'Error',
  value: 'v',
  release: 'r@1',
  environment: 'prod',
  component: null,
  hash: `h${seq % 50}`,
  groupingVersion: 'v1',
  payload: JSON.stringify({ message: 'x'.repeat(800) }),
})
const group = (received: () => number) =>
  Array.from({ length: 100 }, () => ({ events: [event(received())], outcomes: [] }))

for (let n = 0; n < old; n += 100) await store.write(group(() => Date.now() - 120 * DAY))

/** Events per second written by a loop of 100-unit group commits until `until()` is true. */
async function ingest(until: () => boolean): Promise<number> {
  const t0 = performance.now()
  let written = 0
  while (!until()) {
    await store.write(group(() => Date.now()))
    written += 100
  }
  return (written / (performance.now() - t0)) * 1000
}

const baselineEnd = performance.now() + 5_000
const baseline = await ingest(() => performance.now() > baselineEnd)
let swept = false
const sweep = sweepRetention(store, 90, Date.now()).then((r) => {
  swept = true
  return r
})
const during = await ingest(() => swept)
const removed = await sweep
process.stdout.write(
  `${JSON.stringify({ oldEvents: old, removed: removed.events, baselineEps: Math.round(baseline), duringSweepEps: Math.round(during), ratio: +(during / baseline).toFixed(3) })}\n`,
)
await store.close()
rmSync(dir, { recursive: true, force: true })
