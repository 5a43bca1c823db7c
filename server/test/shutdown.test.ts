import { connect } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Api, parseDsn } from '../../conformance/src/harness/api.ts'
import { startServer } from '../../conformance/src/harness/server.ts'
import { waitFor } from '../../conformance/src/harness/wait.ts'
import { openPostgresStore } from '../src/store/postgres/index.ts'
import { openSqliteStore } from '../src/store/sqlite/index.ts'
import type { Store } from '../src/store/types.ts'
import { eventEnvelope } from './support/helpers.ts'
import { createTestDatabase, type TestDatabase } from './support/postgres-database.ts'
import { readResponse } from './support/raw-http.ts'
import { onPostgres } from './support/test-backend.ts'

let db: TestDatabase | undefined
afterAll(async () => {
  await db?.drop()
})

/** Whether a new TCP connection to the port is refused (the listener closed). */
const refused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => {
      s.destroy()
      resolve(false)
    })
    s.once('error', () => resolve(true))
  })

describe('SIGTERM on a real server process', () => {
  it('turns unready first, finishes the request in flight, refuses new connections and exits 0', async () => {
    db = onPostgres ? await createTestDatabase() : undefined
    const server = await startServer({
      // The built server, as production runs it (`npm test` builds it first).
      entry: 'dist',
      readyTimeoutMs: 60_000,
      env: {
        SHUTDOWN_DRAIN_MS: '1500',
        LOG_LEVEL: 'warn',
        ...(db === undefined ? {} : { DATABASE_URL: db.url }),
      },
    })
    try {
      const api = new Api(server.url, server.adminToken)
      const project = await api.createProject('shutdown')
      const [key] = await api.keys(project.id)
      const { publicKey } = parseDsn(key?.dsn ?? '')
      const port = Number(new URL(server.url).port)
      const eventId = 'e'.repeat(32)
      const body = Buffer.from(eventEnvelope({ event_id: eventId, message: 'in flight' }))
      // A request in flight: headers and half of the body sent before SIGTERM.
      const socket = connect(port, '127.0.0.1')
      await new Promise<void>((r) => socket.once('connect', () => r()))
      socket.write(
        `POST /api/${project.id}/envelope/?sentry_key=${publicKey} HTTP/1.1\r\nhost: x\r\n` +
          `content-length: ${body.length}\r\n\r\n`,
      )
      socket.write(body.subarray(0, 10))
      const response = readResponse(socket)

      expect((await fetch(`${server.url}/readyz`)).status).toBe(200)
      server.signal('SIGTERM')
      await waitFor(async () => (await fetch(`${server.url}/readyz`)).status === 503, {
        timeout: 5000,
      })
      // After the drain the listener closes: new connections are refused, the old one lives.
      await waitFor(() => refused(port), { timeout: 10_000 })
      socket.write(body.subarray(10))
      const res = await response
      expect(res.status).toBe(200)
      expect(JSON.parse(res.body)).toEqual({ id: eventId })
      socket.destroy()
      expect(await server.exited).toEqual({ exitCode: 0, signal: undefined })

      // The 200 meant committed: the event is in the database the process left behind.
      const store: Store =
        db === undefined
          ? await openSqliteStore(join(server.dataDir, 'ingest.sqlite'))
          : await openPostgresStore(db.url, { poolSize: 1 })
      try {
        expect((await store.getEvent(project.id, eventId))?.eventId).toBe(eventId)
      } finally {
        await store.close()
      }
    } finally {
      await server.stop()
    }
  }, 90_000)
})
