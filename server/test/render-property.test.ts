import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createProject, eid, sentryAuth, type TestProject, testApp } from './helpers.ts'
import { fixtureEvents, mutateEvent, prng, seedFromEnv, serialise } from './mutate.ts'
import { createUser, signIn, type UiClient } from './ui-helpers.ts'

// Property: whatever an event holds, storing it never answers 5xx, and every page and API read
// of it renders. Seeded; `FUZZ_SEED=<n>` replays a failing run.
const SEED = seedFromEnv(process.env)
const RUNS = 120

let app: FastifyInstance
let p: TestProject
let ui: UiClient

beforeAll(async () => {
  console.log(`render property test seed: FUZZ_SEED=${SEED}`)
  app = await testApp()
  p = await createProject(app)
  await createUser(app)
  ui = await signIn(app)
})
afterAll(() => app.close())

const ADMIN = { authorization: 'Bearer test-admin-token' }

async function read(url: string, asUi: boolean): Promise<void> {
  const res = asUi ? await ui.get(url) : await app.inject({ url, headers: ADMIN })
  expect(res.statusCode, `${url} (FUZZ_SEED=${SEED}): ${res.body.slice(0, 300)}`).toBeLessThan(500)
}

it('stores mutated events without a 5xx and renders every read of each', async () => {
  const rnd = prng(SEED)
  const base = fixtureEvents()
  expect(base.length).toBeGreaterThan(5)
  let accepted = 0
  for (let i = 0; i < RUNS; i++) {
    const event = mutateEvent(base[i % base.length] ?? {}, rnd)
    event['event_id'] = eid(i + 1)
    const body = `{"event_id":"${eid(i + 1)}"}\n{"type":"event"}\n${serialise(event)}`
    const res = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/`,
      headers: { 'x-sentry-auth': sentryAuth(p.key) },
      payload: body,
    })
    expect(res.statusCode, `event ${i} (FUZZ_SEED=${SEED}): ${res.body}`).toBeLessThan(500)
    if (res.statusCode !== 200) continue
    accepted++
    const ev = await app.inject({
      url: `/api/0/projects/${p.id}/events/${eid(i + 1)}/`,
      headers: ADMIN,
    })
    expect(ev.statusCode, `event read ${i} (FUZZ_SEED=${SEED}): ${ev.body.slice(0, 300)}`).toBe(200)
    const issueId = ev.json<{ issue_id: number }>().issue_id
    await read(`/api/0/issues/${issueId}/`, false)
    await read(`/api/0/issues/${issueId}/events/`, false)
    await read(`/issues/${issueId}`, true)
    await read(`/projects/${p.id}/events/${eid(i + 1)}`, true)
  }
  // A property over nothing proves nothing: most mutated events must be stored.
  expect(accepted).toBeGreaterThan(RUNS / 2)
  for (const url of [
    `/api/0/projects/${p.id}/issues/`,
    `/api/0/projects/${p.id}/outcomes/`,
    `/api/0/projects/${p.id}/releases/`,
  ])
    await read(url, false)
  for (const tab of ['', '?tab=unresolved', '?tab=resolved', '?tab=ignored'])
    await read(`/projects/${p.id}/issues${tab}`, true)
  for (const url of [`/projects/${p.id}/releases`, `/projects/${p.id}/outcomes`])
    await read(url, true)
}, 120_000)
