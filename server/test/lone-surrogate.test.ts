import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  eventEnvelope,
  issuesOf,
  postEnvelope,
  testApp,
} from './support/helpers.ts'

// A lone surrogate is no text: JSON escapes it (`\ud800`), which the stored payload keeps, but
// the row's text columns (title, tags, search text) hold it as a character. SQLite read that
// back as three U+FFFD and PostgreSQL as one; written as one U+FFFD, both backends (this file
// runs in the integration and integration-postgres projects) show and find the same text.

let app: FastifyInstance
beforeAll(async () => {
  app = await testApp()
})
afterAll(async () => {
  await app.close()
})

it('shows and finds text with a lone surrogate as one U+FFFD on either backend', async () => {
  const p = await createProject(app, 'surrogates')
  const event = {
    event_id: eid(1),
    exception: { values: [{ type: 'Lone\ud800Error', value: 'half \udc00 pair' }] },
    tags: { 'tag.lone': 'v\ud800' },
  }
  const res = await postEnvelope(app, p.id, p.key, eventEnvelope(event))
  expect(res.statusCode).toBe(200)
  const [issue] = await issuesOf(app, p.id)
  expect(issue?.title).toBe('Lone\ufffdError: half \ufffd pair')
  const tags = await app.inject({ url: `/api/0/issues/${issue?.id}/tags/`, headers: ADMIN })
  expect(tags.body).toContain(JSON.stringify('v\ufffd').slice(1, -1))
  expect(tags.body).not.toContain('\ufffd\ufffd')
  const found = await app.inject({
    url: `/api/0/projects/${p.id}/issues/?query=${encodeURIComponent('tag.lone:"v\ufffd"')}`,
    headers: ADMIN,
  })
  expect(found.json<{ id: number }[]>().map((i) => i.id)).toEqual([issue?.id])
})
