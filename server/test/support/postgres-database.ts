import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { inject } from 'vitest'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's private PostgreSQL (scripts/postgres/vitest-global-setup.ts). */
    postgresUrl: string
  }
}

/** A database of its own on the run's PostgreSQL, and the way to drop it. */
export interface TestDatabase {
  url: string
  drop(): Promise<void>
}

/**
 * Creates an empty database for one test file or case on the PostgreSQL the vitest global
 * setup started, so files run in parallel without sharing rows. Fails (never skips) when that
 * server is missing: a PostgreSQL test that silently did not run would count as a pass.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const admin = inject('postgresUrl')
  if (typeof admin !== 'string' || admin === '')
    throw new Error('no test PostgreSQL: run through vitest (global setup starts one)')
  const name = `t_${randomBytes(6).toString('hex')}`
  const client = new pg.Client(admin)
  await client.connect()
  try {
    await client.query(`CREATE DATABASE ${name}`)
  } finally {
    await client.end()
  }
  const url = new URL(admin)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client(admin)
      await c.connect()
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await c.end()
      }
    },
  }
}
