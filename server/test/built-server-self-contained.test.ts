/**
 * The build is self-contained: a copy of `server/dist` with only the installed dependencies
 * beside it (no `src/`, no vendored `.proto` files, no tsx) starts and decodes an OTLP protobuf
 * export into an issue. Guards against run-time reads that reach back into the source tree.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Api, parseDsn } from '../../conformance/src/harness/api.ts'
import { startServer } from '../../conformance/src/harness/server.ts'
import { logRecord, logsExport, toProtobuf } from './support/otlp-wire.ts'
import { createTestDatabase, type TestDatabase } from './support/postgres-database.ts'
import { onPostgres } from './support/test-backend.ts'

const root = join(import.meta.dirname, '..', '..')
const copy = mkdtempSync(join(tmpdir(), 'ingest-dist-'))
let db: TestDatabase | undefined
afterAll(async () => {
  rmSync(copy, { recursive: true, force: true })
  await db?.drop()
})

/** `server/dist` copied to `<copy>/server/dist`, resolving packages through links to the installed ones. */
function copyOfBuild(): string {
  const server = join(copy, 'server')
  cpSync(join(root, 'server', 'dist'), join(server, 'dist'), { recursive: true })
  writeFileSync(join(server, 'package.json'), JSON.stringify({ type: 'module' }))
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir')
  const own = join(root, 'server', 'node_modules')
  if (existsSync(own)) symlinkSync(own, join(server, 'node_modules'), 'dir')
  return join(server, 'dist')
}

describe('the built server on its own', () => {
  it('starts from a copy of dist/ and stores an OTLP protobuf error log as an issue', async () => {
    const distDir = copyOfBuild()
    expect(existsSync(join(copy, 'server', 'src'))).toBe(false)
    db = onPostgres ? await createTestDatabase() : undefined
    const server = await startServer({
      entry: 'dist',
      distDir,
      readyTimeoutMs: 60_000,
      env: { LOG_LEVEL: 'warn', ...(db === undefined ? {} : { DATABASE_URL: db.url }) },
    })
    try {
      const api = new Api(server.url, server.adminToken)
      const project = await api.createProject('built')
      const [key] = await api.keys(project.id)
      const { publicKey } = parseDsn(key?.dsn ?? '')
      const body = toProtobuf(
        logsExport([logRecord({ severityNumber: 17, body: 'payment gateway timed out' })]),
      )
      const res = await fetch(`${server.url}/api/${project.id}/otlp/v1/logs`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-protobuf',
          'x-sentry-auth': `sentry sentry_key=${publicKey}`,
        },
        body,
      })
      expect(res.status, await res.clone().text()).toBe(200)
      expect((await res.arrayBuffer()).byteLength).toBe(0)
      // A 200 means stored: the issue is there at once.
      const issues = await api.issues(project.id)
      expect(issues.map((i) => [i.title, i.level])).toEqual([
        ['payment gateway timed out', 'error'],
      ])
    } finally {
      await server.stop()
    }
  })
})
