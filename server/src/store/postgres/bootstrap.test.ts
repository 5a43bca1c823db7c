import { afterEach, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { testConfig } from '../../../test/support/test-config.ts'
import { bootstrap } from '../../bootstrap.ts'
import type { Store } from '../store.ts'
import { openPostgresStore } from './index.ts'

let db: TestDatabase | undefined
const stores: Store[] = []
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()))
  await db?.drop()
  db = undefined
})

describe('first start on PostgreSQL', () => {
  it('two processes starting on one empty database create one admin and one default project', async () => {
    db = await createTestDatabase()
    // Two stores, two pools: two server processes; both migrate and bootstrap at once.
    const [a, b] = await Promise.all([openPostgresStore(db.url), openPostgresStore(db.url)])
    stores.push(a, b)
    const config = testConfig()
    const [ra, rb] = await Promise.all([bootstrap(a, config), bootstrap(b, config)])
    expect((await a.listProjects()).map((p) => p.slug)).toEqual(['default'])
    expect(await b.countUsers()).toBe(1)
    expect(ra.defaultKey?.publicKey).toBe(rb.defaultKey?.publicKey)
    expect([ra, rb].filter((r) => r.generatedPassword !== undefined).length).toBeLessThanOrEqual(1)
  })
})
