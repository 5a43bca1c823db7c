import { afterEach, describe, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../test/support/postgres-database.ts'
import { loadConfig } from '../config.ts'
import { commitConcurrency, openStore } from './open-store.ts'

let db: TestDatabase | undefined
afterEach(async () => {
  await db?.drop()
  db = undefined
})

describe('openStore', () => {
  it('runs on SQLite without DATABASE_URL, one commit at a time', async () => {
    const config = loadConfig({ DATABASE_PATH: ':memory:', DATABASE_POOL_SIZE: '6' })
    const store = await openStore(config)
    expect(store.dialect).toBe('sqlite')
    expect(commitConcurrency(store, config)).toBe(1)
    await store.close()
  })

  it('runs on PostgreSQL with DATABASE_URL, as many commits in flight as the pool has', async () => {
    db = await createTestDatabase()
    const config = loadConfig({ DATABASE_URL: db.url, DATABASE_POOL_SIZE: '6' })
    const store = await openStore(config)
    expect(store.dialect).toBe('postgres')
    expect(commitConcurrency(store, config)).toBe(6)
    expect((await store.listProjects()).length).toBe(0)
    await store.close()
  })

  it('refuses a DATABASE_URL that is not PostgreSQL and a bad pool size', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://db/x' })).toThrow(/postgres:\/\//)
    expect(() => loadConfig({ DATABASE_POOL_SIZE: 'many' })).toThrow(/DATABASE_POOL_SIZE/)
  })
})
