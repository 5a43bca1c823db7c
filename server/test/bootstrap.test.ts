import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { bootstrap } from '../src/bootstrap.ts'
import { openSqliteStore } from '../src/store/sqlite/index.ts'
import type { Store } from '../src/store/types.ts'
import { testConfig } from './support/test-config.ts'

const dirs: string[] = []
const stores: Store[] = []
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()))
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('first start', () => {
  it('two processes starting on one empty database create one admin and one default project', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ingest-boot-'))
    dirs.push(dir)
    const path = join(dir, 'ingest.sqlite')
    // Two stores on one file: two connections, as two server processes would have.
    const a = await openSqliteStore(path, { writerThread: false })
    const b = await openSqliteStore(path, { writerThread: false })
    stores.push(a, b)
    const config = testConfig()
    const [ra, rb] = await Promise.all([bootstrap(a, config), bootstrap(b, config)])
    const projects = await a.listProjects()
    expect(projects.map((p) => p.slug)).toEqual(['default'])
    expect(await a.countUsers()).toBe(1)
    // Both print the same DSN; at most one prints a generated password (the one stored).
    expect(ra.defaultKey?.publicKey).toBe(rb.defaultKey?.publicKey)
    expect([ra, rb].filter((r) => r.generatedPassword !== undefined).length).toBeLessThanOrEqual(1)
  })

  it('keeps the default project when one already exists', async () => {
    const store = await openSqliteStore(':memory:')
    stores.push(store)
    const first = await bootstrap(store, testConfig())
    const again = await bootstrap(store, testConfig())
    expect(again.defaultKey?.publicKey).toBe(first.defaultKey?.publicKey)
    expect(await store.listProjects()).toHaveLength(1)
  })
})
