import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { afterAll } from 'vitest'
import { buildApp } from '../../src/app.ts'
import { readStoredPayload } from '../../src/store/payload-codec.ts'
import { testBackend } from './test-backend.ts'
import { testConfig } from './test-config.ts'

// The app on a database whose every value can be read back afterwards, for tests that look for
// data that must not be stored anywhere (scrubbed secrets): SQLite files or PostgreSQL.
const dir = mkdtempSync(join(tmpdir(), 'privacy-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
let seq = 0

/** The app on a database file (SQLite: the writer thread digests), or its own PostgreSQL. */
export async function fileApp(): Promise<{ app: FastifyInstance; dump: () => Promise<string> }> {
  const { config, store, cleanup } = await testBackend(
    testConfig({ databasePath: join(dir, `db-${++seq}.sqlite`) }),
  )
  const app = await buildApp(config, store === undefined ? {} : { store })
  app.addHook('onClose', cleanup)
  return { app, dump: () => dumpDatabase(config) }
}

/** Every value of every table as text, stored event payloads decoded (the codec's deflate). */
export async function dumpDatabase(config: {
  databasePath: string
  databaseUrl: string | undefined
}): Promise<string> {
  const text = (v: unknown): string => {
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) {
      try {
        return readStoredPayload(v)
      } catch {
        return Buffer.from(v).toString('latin1')
      }
    }
    return typeof v === 'string' ? v : JSON.stringify(v)
  }
  const out: string[] = []
  if (config.databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: config.databaseUrl })
    await client.connect()
    try {
      const tables = await client.query<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public'",
      )
      for (const { t } of tables.rows) {
        const rows = await client.query(`SELECT * FROM "${t}"`)
        for (const r of rows.rows) for (const v of Object.values(r)) out.push(text(v))
      }
    } finally {
      await client.end()
    }
    return out.join('\n')
  }
  const db = new Database(config.databasePath, { readonly: true })
  try {
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
    for (const { name } of tables) {
      for (const r of db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[])
        for (const v of Object.values(r)) out.push(text(v))
    }
  } finally {
    db.close()
  }
  return out.join('\n')
}
