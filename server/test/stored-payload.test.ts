import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { fixtureEvents } from '../../scripts/payload-dictionary/corpus.ts'
import { buildApp } from '../src/app.ts'
import { ADMIN, createProject, freezeDate, postEnvelope } from './support/helpers.ts'
import { testBackend } from './support/test-backend.ts'
import { testConfig } from './support/test-config.ts'

const FIXTURE = 'fixtures/envelopes/event/node-11-error.envelope'
// The fixture arrives a second after its SDK sent it (its `sent_at`), as when it was captured:
// days later, its time would be corrected for a clock off by days (event/clock.ts), and a
// month later bounded, so it would no longer be stored as the digest of the corpus builds it.
const header = readFileSync(new URL(`../../${FIXTURE}`, import.meta.url), 'utf8').split('\n')[0]
freezeDate(Date.parse(JSON.parse(header ?? '{}').sent_at) + 1000)
const dir = mkdtempSync(join(tmpdir(), 'stored-payload-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Overwrites every row's payload with bytes of a format this server does not know. */
async function writeUnknownFormat(config: {
  databasePath: string
  databaseUrl: string | undefined
}): Promise<void> {
  const bytes = Buffer.from([0x7f, 1, 2, 3])
  if (config.databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: config.databaseUrl })
    await client.connect()
    try {
      await client.query('UPDATE events SET payload = $1', [bytes])
    } finally {
      await client.end()
    }
    return
  }
  const db = new Database(config.databasePath, { timeout: 10_000 })
  try {
    db.prepare('UPDATE events SET payload = ?').run(bytes)
  } finally {
    db.close()
  }
}

/** The raw `events.payload` of every row, straight from the database the app wrote. */
async function rawPayloads(config: {
  databasePath: string
  databaseUrl: string | undefined
}): Promise<{ type: string; bytes: Buffer }[]> {
  if (config.databaseUrl !== undefined) {
    const client = new pg.Client({ connectionString: config.databaseUrl })
    await client.connect()
    try {
      const r = await client.query<{ t: string; payload: Buffer }>(
        'SELECT pg_typeof(payload)::text AS t, payload FROM events',
      )
      return r.rows.map((x) => ({ type: x.t, bytes: x.payload }))
    } finally {
      await client.end()
    }
  }
  const db = new Database(config.databasePath, { readonly: true })
  try {
    return db
      .prepare<[], { t: string; payload: Buffer }>(
        'SELECT typeof(payload) AS t, payload FROM events',
      )
      .all()
      .map((x) => ({ type: x.t, bytes: x.payload }))
  } finally {
    db.close()
  }
}

describe('stored event payloads', () => {
  it('are stored encoded (BLOB on SQLite, bytea on PostgreSQL) and read back identical', async () => {
    const { config, store, cleanup } = await testBackend(
      testConfig({ databasePath: join(dir, 'ingest.sqlite') }),
    )
    const app = await buildApp(config, store === undefined ? {} : { store })
    app.addHook('onClose', cleanup)
    try {
      const project = await createProject(app)
      const body = readFileSync(new URL(`../../${FIXTURE}`, import.meta.url), 'utf8')
      const res = await postEnvelope(app, project.id, project.key, body)
      expect(res.statusCode).toBe(200)
      const eventId = res.json<{ id: string }>().id
      const got = await app.inject({
        method: 'GET',
        url: `/api/0/projects/${project.id}/events/${eventId}/`,
        headers: ADMIN,
      })
      expect(got.statusCode).toBe(200)
      // The JSON the ingest's digest step builds for this fixture (scripts/payload-dictionary).
      const built = fixtureEvents().find((e) => e.file === FIXTURE)?.payload
      expect(built).toBeDefined()
      const { issue_id, project_id, component, received, tags, ...shown } =
        got.json<Record<string, unknown>>()
      // Same values (the API's serialiser orders keys its own way); the answer's tags are the
      // stored ones with those derived from the event's fields before them (format.ts apiTags).
      const { tags: storedTags, ...stored } = JSON.parse(built ?? '') as Record<string, unknown>
      expect(shown).toStrictEqual(stored)
      expect(tags).toEqual(expect.arrayContaining(storedTags as unknown[]))
      expect(tags).toEqual(expect.arrayContaining([['level', 'error']]))
      expect([issue_id, project_id, component, typeof received]).toEqual([
        expect.any(Number),
        project.id,
        null,
        'string',
      ])

      const raw = await rawPayloads(config)
      expect(raw).toHaveLength(1)
      expect(raw[0]?.type).toBe(config.databaseUrl === undefined ? 'blob' : 'bytea')
      expect(raw[0]?.bytes[0]).toBe(0x01)
      expect(raw[0]?.bytes.length).toBeLessThan(400)

      // A row this server cannot decode (written by a newer one, or damaged) still reads: the
      // event with a `payload_unreadable` processing error instead of a 500.
      await writeUnknownFormat(config)
      const unreadable = await app.inject({
        method: 'GET',
        url: `/api/0/projects/${project.id}/events/${eventId}/`,
        headers: ADMIN,
      })
      expect(unreadable.statusCode).toBe(200)
      const shownBad = unreadable.json<{ event_id: string; errors: { type: string }[] }>()
      expect(shownBad.event_id).toBe(eventId)
      expect(shownBad.errors.map((e) => e.type)).toEqual(['payload_unreadable'])
      const page = await app.inject({
        method: 'GET',
        url: `/api/0/issues/${issue_id}/events/`,
        headers: ADMIN,
      })
      expect(page.statusCode).toBe(200)
    } finally {
      await app.close()
    }
  })
})
