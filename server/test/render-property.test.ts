import { beforeAll, expect, it } from 'vitest'
import { ADMIN, eid, sentryAuth } from './support/helpers.ts'
import { fixtureEvents, mutateEvent, prng, seedFromEnv, serialise } from './support/mutate.ts'
import { readBelow500, renderingAppPerFile } from './support/ui-helpers.ts'

// Property: whatever an event holds, storing it never answers 5xx, and every page and API read
// of it renders. Seeded; `FUZZ_SEED=<n>` replays a failing run.
const SEED = seedFromEnv(process.env)
const RUNS = 120

beforeAll(() => {
  console.log(`render property test seed: FUZZ_SEED=${SEED}`)
})
const r = renderingAppPerFile()

const read = (url: string, asUi: boolean) => readBelow500(r, url, asUi, `FUZZ_SEED=${SEED}`)

it('stores mutated events without a 5xx and renders every read of each', async () => {
  const rnd = prng(SEED)
  const base = fixtureEvents()
  expect(base.length).toBeGreaterThan(5)
  let accepted = 0
  for (let i = 0; i < RUNS; i++) {
    const event = mutateEvent(base[i % base.length] ?? {}, rnd)
    event['event_id'] = eid(i + 1)
    const body = `{"event_id":"${eid(i + 1)}"}\n{"type":"event"}\n${serialise(event)}`
    const res = await r.app.inject({
      method: 'POST',
      url: `/api/${r.project.id}/envelope/`,
      headers: { 'x-sentry-auth': sentryAuth(r.project.key) },
      payload: body,
    })
    expect(res.statusCode, `event ${i} (FUZZ_SEED=${SEED}): ${res.body}`).toBeLessThan(500)
    if (res.statusCode !== 200) continue
    accepted++
    const ev = await r.app.inject({
      url: `/api/0/projects/${r.project.id}/events/${eid(i + 1)}/`,
      headers: ADMIN,
    })
    expect(ev.statusCode, `event read ${i} (FUZZ_SEED=${SEED}): ${ev.body.slice(0, 300)}`).toBe(200)
    const issueId = ev.json<{ issue_id: number }>().issue_id
    await read(`/api/0/issues/${issueId}/`, false)
    await read(`/api/0/issues/${issueId}/events/`, false)
    await read(`/issues/${issueId}`, true)
    await read(`/projects/${r.project.id}/events/${eid(i + 1)}`, true)
  }
  // A property over nothing proves nothing: most mutated events must be stored.
  expect(accepted).toBeGreaterThan(RUNS / 2)
  for (const url of [
    `/api/0/projects/${r.project.id}/issues/`,
    `/api/0/projects/${r.project.id}/outcomes/`,
    `/api/0/projects/${r.project.id}/releases/`,
  ])
    await read(url, false)
  for (const tab of ['', '?tab=unresolved', '?tab=resolved', '?tab=ignored'])
    await read(`/projects/${r.project.id}/issues${tab}`, true)
  for (const url of [`/projects/${r.project.id}/releases`, `/projects/${r.project.id}/outcomes`])
    await read(url, true)
}, 120_000)
