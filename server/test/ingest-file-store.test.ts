import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import {
  ADMIN,
  createProject,
  eid,
  eventEnvelope,
  issuesOf,
  postEnvelope,
  sendItems,
} from './support/helpers.ts'
import { testConfig } from './support/test-config.ts'

// The server's default is a database file, whose group commits run in the writer thread: the
// ingest contract must hold there as on the in-memory store the other tests use.
const dir = mkdtempSync(join(tmpdir(), 'ingest-file-store-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const fileApp = (name: string) =>
  buildApp(testConfig({ databasePath: join(dir, `${name}.sqlite`) }))

describe('ingest on a database file (writer thread)', () => {
  it('answers 200 only for events that are then stored, grouped and readable', async () => {
    const app = await fileApp('stored')
    const project = await createProject(app)
    const answers = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        postEnvelope(
          app,
          project.id,
          project.key,
          eventEnvelope({ event_id: eid(i + 1), message: `boom ${i % 3 === 0 ? 'a' : 'b'}` }),
        ),
      ),
    )
    expect(answers.map((r) => r.statusCode)).toEqual(answers.map(() => 200))
    expect(answers.map((r) => r.json<{ id: string }>().id)).toEqual(
      answers.map((_, i) => eid(i + 1)),
    )
    const issues = await issuesOf(app, project.id)
    expect(issues.map((i) => i.count).sort((a, b) => a - b)).toEqual([8, 16])
    const event = await app.inject({
      method: 'GET',
      url: `/api/0/projects/${project.id}/events/${eid(5)}/`,
      headers: ADMIN,
    })
    expect(event.statusCode).toBe(200)
    await app.close()
  })

  it('stores nothing of an envelope with an invalid item, and counts a resend as duplicate', async () => {
    const app = await fileApp('invalid')
    const project = await createProject(app)
    const bad = await sendItems(app, project, [
      ['event', { event_id: eid(1), message: 'kept?' }],
      ['event', '{not json'],
    ])
    expect(bad.statusCode).toBe(400)
    expect(await issuesOf(app, project.id)).toEqual([])
    const body = eventEnvelope({ event_id: eid(2), message: 'once' })
    expect((await postEnvelope(app, project.id, project.key, body)).statusCode).toBe(200)
    expect((await postEnvelope(app, project.id, project.key, body)).statusCode).toBe(200)
    expect((await issuesOf(app, project.id)).map((i) => i.count)).toEqual([1])
    await app.close()
  })

  it('keeps acknowledged events across a restart on the same file', async () => {
    const first = await fileApp('restart')
    const project = await createProject(first)
    const body = eventEnvelope({ event_id: eid(7), message: 'survives' })
    expect((await postEnvelope(first, project.id, project.key, body)).statusCode).toBe(200)
    await first.close()
    const second = await fileApp('restart')
    expect((await issuesOf(second, project.id)).map((i) => i.title)).toEqual(['survives'])
    await second.close()
  })
})
