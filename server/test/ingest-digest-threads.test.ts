import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import {
  ADMIN,
  createProject,
  eid,
  envelopeOf,
  postEnvelope,
  sentryAuth,
  type TestProject,
} from './support/helpers.ts'
import { testBackend } from './support/test-backend.ts'
import { testConfig } from './support/test-config.ts'

/**
 * The ingest with its digest on worker threads (`DIGEST_THREADS`): the same answers, the same
 * stored events and the same refusals as on the main thread (the default), end to end.
 */
describe.each([1, 2])('ingest with %i digest thread(s)', (threads) => {
  let app: Awaited<ReturnType<typeof buildApp>>
  let project: TestProject

  beforeAll(async () => {
    const { config, store, cleanup } = await testBackend(testConfig({ digestThreads: threads }))
    app = await buildApp(config, store === undefined ? {} : { store })
    app.addHook('onClose', cleanup)
    project = await createProject(app)
  })
  afterAll(async () => {
    await app.close()
  })

  const eventOf = (id: string) =>
    app.inject({
      method: 'GET',
      url: `/api/0/projects/${project.id}/events/${id}/`,
      headers: ADMIN,
    })

  it('stores concurrent requests, each answered with its own id', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => eid(1000 + i + threads * 100))
    const answers = await Promise.all(
      ids.map((id, i) =>
        postEnvelope(
          app,
          project.id,
          project.key,
          envelopeOf([['event', { event_id: id, message: `m${i} ünï`, level: 'warning' }]], {
            event_id: id,
          }),
        ),
      ),
    )
    expect(answers.map((a) => a.statusCode)).toEqual(ids.map(() => 200))
    expect(answers.map((a) => a.json<{ id: string }>().id)).toEqual(ids)
    for (const [i, id] of ids.entries()) {
      const got = await eventOf(id)
      expect(got.statusCode).toBe(200)
      expect(got.json<{ message: string; level: string }>()).toMatchObject({
        message: `m${i} ünï`,
        level: 'warning',
      })
    }
  })

  it('refuses a whole envelope whose second event is not JSON, storing nothing of it', async () => {
    const good = eid(5000 + threads)
    const res = await postEnvelope(
      app,
      project.id,
      project.key,
      envelopeOf([
        ['event', { event_id: good, message: 'kept?' }],
        ['event', '{"message": oops'],
      ]),
    )
    expect(res.statusCode).toBe(400)
    expect(res.json<{ detail: string }>().detail).toMatch(/not JSON/)
    expect((await eventOf(good)).statusCode).toBe(404)
  })

  it('digests /store/ bodies too', async () => {
    const id = eid(6000 + threads)
    const res = await app.inject({
      method: 'POST',
      url: `/api/${project.id}/store/`,
      headers: { 'x-sentry-auth': sentryAuth(project.key), 'content-type': 'application/json' },
      payload: JSON.stringify({ event_id: id, message: 'legacy store' }),
    })
    expect(res.statusCode).toBe(200)
    expect(res.json<{ id: string }>().id).toBe(id)
    expect((await eventOf(id)).json<{ message: string }>().message).toBe('legacy store')
  })

  it('scrubs with the project settings and counts what the filters drop', async () => {
    const put = await app.inject({
      method: 'PUT',
      url: `/api/0/projects/${project.id}/privacy/`,
      headers: ADMIN,
      payload: { sensitive_fields: ['member_no'], filters: { releases: ['9.9.*'] } },
    })
    expect(put.statusCode).toBe(200)
    const kept = eid(7000 + threads)
    const dropped = eid(7100 + threads)
    const res = await postEnvelope(
      app,
      project.id,
      project.key,
      envelopeOf([
        ['event', { event_id: kept, message: 'x', extra: { member_no: '42', password: 'pw1' } }],
        ['event', { event_id: dropped, message: 'y', release: '9.9.1' }],
      ]),
    )
    expect(res.statusCode).toBe(200)
    expect((await eventOf(kept)).json<{ extra: unknown }>().extra).toEqual({
      member_no: '[Filtered]',
      password: '[Filtered]',
    })
    expect((await eventOf(dropped)).statusCode).toBe(404)
    const outcomes = await app.inject({
      url: `/api/0/projects/${project.id}/outcomes/?since=0`,
      headers: ADMIN,
    })
    expect(
      outcomes
        .json<{ totals: { outcome: string; reason: string; quantity: number }[] }>()
        .totals.filter((t) => t.outcome === 'filtered'),
    ).toMatchObject([{ reason: 'release-version', quantity: 1 }])
  })
})
