import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, statfsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { DEFAULT_PROTECTION } from '../src/config.ts'
import { openSqliteStore } from '../src/store/sqlite/index.ts'
import { ADMIN, createProject, eid, eventEnvelope, sentryAuth } from './support/helpers.ts'
import { testConfig } from './support/test-config.ts'

// Storage that cannot take data answers 503 with Retry-After (never 500), readiness says so,
// and the server recovers by itself. The disk is filled for real (fallocate), and SQLite's
// own "database or disk is full" is produced with max_page_count.
//
// The filled disk is a tmpfs of its own (/dev/shm) when there is one with room: the other test
// files running alongside write and delete hundreds of megabytes under the temp dir
// (PostgreSQL clusters, bundles, builds), which moved the free space of a shared disk by more
// than the margin below and made this test fail on CI for reasons outside the guard.
const TMPFS_MAGIC = 0x01021994
const GiB = 1024 ** 3
function diskForTest(): string {
  try {
    const s = statfsSync('/dev/shm')
    if (s.type === TMPFS_MAGIC && s.bavail * s.bsize >= 2 * GiB) return '/dev/shm'
  } catch {
    // no /dev/shm: the temp dir's disk below
  }
  return tmpdir()
}
const disk = diskForTest()
const dir = mkdtempSync(join(disk, 'ingest-disk-'))
const apps: FastifyInstance[] = []
afterAll(async () => {
  for (const a of apps) await a.close()
  rmSync(dir, { recursive: true, force: true })
})

const freeBytes = () => {
  const s = statfsSync(dir)
  return s.bavail * s.bsize
}

async function post(app: FastifyInstance, key: string, projectId: number, n: number) {
  return app.inject({
    method: 'POST',
    url: `/api/${projectId}/envelope/`,
    headers: { 'x-sentry-auth': sentryAuth(key) },
    payload: eventEnvelope({ event_id: eid(n), message: `disk ${n}` }),
  })
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

describe('health routes', () => {
  it('answer unauthenticated: live and ready', async () => {
    const app = await buildApp(testConfig())
    apps.push(app)
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' })
    const ready = await app.inject({ url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toEqual({ status: 'ok' })
  })
})

describe('disk guard', () => {
  it('refuses data with 503 + Retry-After below the threshold and recovers when space returns', async () => {
    // The guard's floor sits `margin` under today's free space and the filler takes twice that,
    // so whatever else writes or deletes on the same disk meanwhile must stay under `margin`.
    const margin = Math.min(disk === '/dev/shm' ? GiB / 4 : GiB, Math.floor(freeBytes() / 4))
    const app = await buildApp(
      testConfig({
        dataDir: dir,
        protection: { ...DEFAULT_PROTECTION, diskMinFreeBytes: freeBytes() - margin },
      }),
    )
    apps.push(app)
    const p = await createProject(app)
    expect((await post(app, p.key, p.id, 1)).statusCode).toBe(200)
    const filler = join(dir, 'filler')
    execFileSync('fallocate', ['-l', String(2 * margin), filler])
    try {
      await until('the guard', async () => (await post(app, p.key, p.id, 2)).statusCode === 503)
      const res = await post(app, p.key, p.id, 3)
      expect(res.statusCode).toBe(503)
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
      expect(res.json<{ detail: string }>().detail).toMatch(/low disk space/)
      expect((await app.inject({ url: '/readyz' })).statusCode).toBe(503)
      expect((await app.inject({ url: '/healthz' })).statusCode).toBe(200)
    } finally {
      rmSync(filler, { force: true })
    }
    await until('recovery', async () => (await post(app, p.key, p.id, 4)).statusCode === 200)
    expect((await app.inject({ url: '/readyz' })).statusCode).toBe(200)
  }, 60_000)
})

describe('a write the database refuses', () => {
  it('answers 503 with Retry-After, not 500, and recovers once the database takes writes', async () => {
    const store = await openSqliteStore(':memory:')
    const app = await buildApp(testConfig(), { store })
    apps.push(app)
    const p = await createProject(app)
    expect((await post(app, p.key, p.id, 1)).statusCode).toBe(200)
    const pages = Number(store.db.pragma('page_count', { simple: true }))
    store.db.pragma(`max_page_count = ${pages}`)
    let res = await post(app, p.key, p.id, 2)
    for (let n = 3; res.statusCode === 200 && n < 200; n++) res = await post(app, p.key, p.id, n)
    expect(res.statusCode, res.body).toBe(503)
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0)
    expect(res.json<{ detail: string }>().detail).toMatch(/write failed/)
    store.db.pragma('max_page_count = 1073741823')
    expect((await post(app, p.key, p.id, 500)).statusCode).toBe(200)
    const stored = await app.inject({
      url: `/api/0/projects/${p.id}/events/${eid(500)}/`,
      headers: ADMIN,
    })
    expect(stored.statusCode).toBe(200)
  })
})
