import { afterEach } from 'vitest'
import { openPostgresStore } from '../../src/store/postgres/index.ts'
import { createTestDatabase } from './postgres-database.ts'

/**
 * Two PostgreSQL stores on one fresh database — two server nodes, each with its own pool —
 * and a project with a key; `close()` closes both and drops the database. For the tests of
 * what concurrent nodes do to shared rows.
 */
export async function twoPgNodes(poolSize = 4) {
  const db = await createTestDatabase()
  const a = await openPostgresStore(db.url, { poolSize })
  const b = await openPostgresStore(db.url, { poolSize })
  const { project, key } = await a.createProject('P', 'p', 'a'.repeat(32))
  return {
    a,
    b,
    project,
    key,
    url: db.url,
    close: async () => {
      await Promise.all([a.close(), b.close()])
      await db.drop()
    },
  }
}

/** What `twoPgNodes` opened. */
export type PgNodes = Awaited<ReturnType<typeof twoPgNodes>>

/**
 * `twoPgNodes` for each test of a file that asks: returns the opener, and closes what it
 * opened after each test.
 */
export function pgNodesPerTest(): () => Promise<PgNodes> {
  let open: PgNodes | undefined
  afterEach(async () => {
    await open?.close()
    open = undefined
  })
  return async () => {
    open = await twoPgNodes()
    return open
  }
}
