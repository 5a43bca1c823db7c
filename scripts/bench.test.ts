// Smoke test of `npm run bench`: a short run against the built server (npm test builds it
// first) that checks the bench measures — events counted in the database, consistent with the
// 200 answers, every figure printed — never how fast anything is.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SERVER_NODE_FLAGS } from './server-node-flags.mjs'

const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const bench = (args: string[]) =>
  spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      '--import',
      './scripts/tsx-in-worker-threads.mjs',
      'scripts/bench.ts',
      ...args,
    ],
    {
      encoding: 'utf8',
      timeout: 120_000,
    },
  )

describe('npm run bench', () => {
  it('counts stored events in the database and prints every figure', () => {
    const CONNECTIONS = 8
    const json = join(dir, 'bench.json')
    const r = bench([
      '--seconds',
      '1',
      '--warmup',
      '1',
      '--connections',
      `${CONNECTIONS}`,
      '--json',
      json,
    ])
    expect(r.status, r.stderr).toBe(0)
    for (const figure of [
      'events/s stored (counted from database',
      'p50 ',
      'p99 ',
      'max ',
      'peak RSS ',
      'CPU ms/event',
      'cores (wrk ',
      'bytes on disk/event',
      'bare route: ',
      'requests/s',
      'ratio ingest / bare-route ceiling: ',
      'wrk ',
    ]) {
      expect(r.stdout).toContain(figure)
    }
    expect(r.stdout).not.toContain('n/a')
    // The server runs with the Node flags `npm start` gives it.
    expect(r.stdout).toContain(`node ${SERVER_NODE_FLAGS.join(' ')}`)
    const out = JSON.parse(readFileSync(json, 'utf8')) as {
      nodeFlags: string[]
      ingest: Record<string, number | string>
      bare: Record<string, number>
      ratio: number
    }
    expect(out.nodeFlags).toEqual([...SERVER_NODE_FLAGS])
    const i = out.ingest
    expect(i['countedFrom']).toBe('database')
    expect(i['stored']).toBeGreaterThan(0)
    // The default load is one hot issue.
    expect(i['issuesInDatabase']).toBe(1)
    // Every 200 is stored; at most one request per connection per run was cut off by wrk's end
    // after it was stored but before its answer was counted.
    expect(i['storedTotal']).toBeGreaterThanOrEqual(i['answers200Total'] as number)
    expect(i['storedTotal']).toBeLessThanOrEqual((i['answers200Total'] as number) + 2 * CONNECTIONS)
    for (const k of [
      'eventsPerSec',
      'p50Ms',
      'p99Ms',
      'maxMs',
      'peakRssMiB',
      'cpuMsPerEvent',
      'coresUsed',
      'bytesPerEvent',
    ]) {
      expect(i[k], k).toBeGreaterThan(0)
    }
    expect(out.bare['requestsPerSec']).toBeGreaterThan(0)
    expect(out.ratio).toBeGreaterThan(0)
  }, 150_000)

  it('--retention sweeps the expired events in one arm only and counts only new events', () => {
    const json = join(dir, 'retention.json')
    const r = bench([
      '--retention',
      '3000',
      '--seconds',
      '1',
      '--warmup',
      '1',
      '--connections',
      '4',
      '--json',
      json,
    ])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('ratio during sweep / no sweep')
    type Arm = { ingest: Record<string, number>; expiredLeftAtEnd: number }
    const out = JSON.parse(readFileSync(json, 'utf8')) as {
      retention: { expired: number; without: Arm[]; during: Arm[] }
    }
    const [without] = out.retention.without
    const [during] = out.retention.during
    // Without the sweep every expired event is still there; with it the server's sweeper ran.
    expect(without?.expiredLeftAtEnd).toBe(3000)
    expect(during?.expiredLeftAtEnd).toBeLessThan(3000)
    // Stored = new events only: the pre-filled ones are not counted as ingest.
    for (const arm of [without, during]) {
      expect(arm?.ingest['storedTotal']).toBeGreaterThan(0)
      expect(arm?.ingest['storedTotal']).toBeLessThanOrEqual(
        (arm?.ingest['answers200Total'] ?? 0) + 8,
      )
      expect(arm?.ingest['storedTotal']).toBeGreaterThanOrEqual(
        arm?.ingest['answers200Total'] ?? Number.NaN,
      )
    }
  }, 150_000)

  it.each(['sqlite', 'postgres'])(
    '--issues 25 --users 7 on %s spreads the events over 25 issues and 7 users, all stored',
    (db) => {
      const json = join(dir, `issues-${db}.json`)
      const r = bench([
        '--db',
        db,
        '--issues',
        '25',
        '--users',
        '7',
        '--seconds',
        '1',
        '--warmup',
        '1',
        '--connections',
        '4',
        '--no-bare',
        '--json',
        json,
      ])
      expect(r.status, r.stderr).toBe(0)
      expect(r.stdout).toContain('spread over 25 issues')
      expect(r.stdout).toContain('each naming one of 7 users')
      expect(r.stdout).toContain(' in 25 issues by 7 users)')
      const out = JSON.parse(readFileSync(json, 'utf8')) as {
        shape: { issues?: number }
        ingest: Record<string, number>
      }
      expect(out.shape.issues).toBe(25)
      expect(out.ingest['issuesInDatabase']).toBe(25)
      expect(out.ingest['usersInDatabase']).toBe(7)
      expect(out.ingest['storedTotal']).toBeGreaterThanOrEqual(out.ingest['answers200Total'] ?? 0)
    },
    150_000,
  )

  // Needs root and a writable cgroup mount (cgroup v1 or v2 with the cpu controller): the CI
  // machine runs the tests as root. Checks the harness, not the speed.
  it('--cpu-share starts PostgreSQL and 1 then 2 nodes, each in a CPU-limited cgroup, and reports each count', () => {
    const json = join(dir, 'cpu-share.json')
    const r = bench([
      '--db',
      'postgres',
      '--cpu-share',
      '--share',
      '0.3',
      '--share-nodes',
      '1,2',
      '--seconds',
      '1',
      '--warmup',
      '1',
      '--connections',
      '4',
      '--json',
      json,
    ])
    expect(r.status, r.stderr).toBe(0)
    expect(r.stdout).toContain('1 node(s) × 0.3 cores + PostgreSQL 0.3 cores: ')
    expect(r.stdout).toContain('2 node(s) × 0.3 cores + PostgreSQL 0.3 cores: ')
    type Run = {
      nodes: number
      ingest: Record<string, number>
      nodeCoresEach: number
      dbProcesses: number
      dbThrottled: number
    }
    const out = JSON.parse(readFileSync(json, 'utf8')) as {
      cpuShare: { share: number; cgroup: string; summary: Run[]; runs: Run[] }
    }
    expect(out.cpuShare.share).toBe(0.3)
    expect(out.cpuShare.cgroup).toMatch(/^cgroup v[12] under \/sys\/fs\/cgroup/)
    expect(out.cpuShare.runs.map((x) => x.nodes)).toEqual([1, 2])
    for (const run of out.cpuShare.runs) {
      // The postmaster and its background processes were moved, not only the postmaster.
      expect(run.dbProcesses).toBeGreaterThan(1)
      expect(run.ingest['storedTotal']).toBeGreaterThanOrEqual(run.ingest['answers200Total'] ?? 0)
      expect(run.ingest['eventsPerSec']).toBeGreaterThan(0)
      // The quota binds: a node never used much more than its share (CPU ticks are 10 ms).
      expect(run.nodeCoresEach).toBeLessThanOrEqual(0.3 + 0.1)
    }
    // Every cgroup the run made is gone.
    const root = out.cpuShare.cgroup.replace(/^cgroup v[12] under /, '')
    expect(readdirSync(root).filter((n) => n.startsWith('ingest-bench-'))).toEqual([])
  }, 150_000)

  it('refuses --users it cannot name', () => {
    const r = bench(['--users', '1.5'])
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('--users is a whole number')
  })

  it('refuses --issues it cannot spread', () => {
    const r = bench(['--issues', '0'])
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('--issues is a whole number')
  })

  it('refuses --nodes without a shared PostgreSQL instead of reporting a figure', () => {
    const r = bench(['--nodes', '2'])
    expect(r.status).not.toBe(0)
    expect(r.stderr).toContain('--nodes N > 1 needs --db postgres')
  })
})
