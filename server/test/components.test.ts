import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { componentKeyIds } from '../src/components/keys.ts'
import { createProject, sentryAuth, type TestProject, testApp } from './helpers.ts'
import { call, listIssues, sendEvent } from './triage-helpers.ts'

interface KeyBody {
  id: number
  label: string
  component: string | null
  public_key: string
  dsn: string
  revoked: boolean
}

let app: FastifyInstance
let p: TestProject

beforeEach(async () => {
  app = await testApp()
  p = await createProject(app)
})

afterEach(async () => {
  await app.close()
})

const mint = (label: unknown, projectId = p.id) =>
  call(app, 'POST', `/api/0/projects/${projectId}/keys/`, { label })

async function mintKey(label: string): Promise<KeyBody> {
  const res = await mint(label)
  expect(res.statusCode, res.body).toBe(201)
  return res.json<KeyBody>()
}

describe('component DSNs', () => {
  it('mints a labelled DSN whose events join the project stream, filterable by component', async () => {
    const worker = await mintKey('worker')
    expect(worker).toMatchObject({ label: 'worker', component: 'worker', revoked: false })
    expect(worker.public_key).toMatch(/^[0-9a-f]{32}$/)
    const dsn = new URL(worker.dsn)
    expect(dsn.username).toBe(worker.public_key)
    expect(dsn.pathname).toBe(`/${p.id}`)
    const keys = await call(app, 'GET', `/api/0/projects/${p.id}/keys/`)
    expect(keys.json<KeyBody[]>().map((k) => k.component)).toEqual([null, 'worker'])

    const fromWorker = await sendEvent(app, p.id, worker.public_key, 'queue stalled')
    await sendEvent(app, p.id, p.key, 'page crashed')
    // The same error from both parts of the product is one issue.
    await sendEvent(app, p.id, worker.public_key, 'shared failure')
    await sendEvent(app, p.id, p.key, 'shared failure')

    const all = await listIssues(app, p.id)
    expect(all.map((i) => i.title).sort()).toEqual([
      'page crashed',
      'queue stalled',
      'shared failure',
    ])
    const onlyWorker = await listIssues(app, p.id, '?component=worker')
    expect(onlyWorker.map((i) => i.title).sort()).toEqual(['queue stalled', 'shared failure'])
    expect(await listIssues(app, p.id, '?component=cli')).toEqual([])

    const event = await call(app, 'GET', `/api/0/projects/${p.id}/events/${fromWorker}/`)
    expect(event.json()).toMatchObject({ event_id: fromWorker, component: 'worker' })

    // The Outcomes view filters by the component's keys.
    expect(await componentKeyIds(app.services.store, p.id, 'worker')).toEqual([worker.id])
    const res = await call(app, 'GET', `/api/0/projects/${p.id}/outcomes/?component=worker`)
    const totals = res.json<{ totals: { outcome: string; quantity: number }[] }>().totals
    expect(totals.find((o) => o.outcome === 'accepted')?.quantity).toBe(2)
  })

  it('revoking a key makes ingest with it a 403 at once; the label can then be reused', async () => {
    const cli = await mintKey('cli')
    await sendEvent(app, p.id, cli.public_key, 'before revoke')
    const res = await call(app, 'DELETE', `/api/0/projects/${p.id}/keys/${cli.id}/`)
    expect(res.statusCode).toBe(204)
    const rejected = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/`,
      headers: { 'x-sentry-auth': sentryAuth(cli.public_key) },
      payload: `{}\n{"type":"event"}\n{"message":"after revoke"}`,
    })
    expect(rejected.statusCode).toBe(403)
    expect(rejected.json<{ detail: string }>().detail).toMatch(/revoked/)
    const keys = (await call(app, 'GET', `/api/0/projects/${p.id}/keys/`)).json<KeyBody[]>()
    expect(keys.find((k) => k.id === cli.id)?.revoked).toBe(true)

    // Revoking again is harmless; unknown keys and keys of another project are 404.
    expect((await call(app, 'DELETE', `/api/0/projects/${p.id}/keys/${cli.id}/`)).statusCode).toBe(
      204,
    )
    expect((await call(app, 'DELETE', `/api/0/projects/${p.id}/keys/99999/`)).statusCode).toBe(404)
    const other = await createProject(app, 'other')
    expect(
      (await call(app, 'DELETE', `/api/0/projects/${other.id}/keys/${cli.id}/`)).statusCode,
    ).toBe(404)

    // A new key may take the label of a revoked one; its events carry the same component.
    const again = await mintKey('cli')
    expect(again.public_key).not.toBe(cli.public_key)
    await sendEvent(app, p.id, again.public_key, 'after rotation')
    const titles = (await listIssues(app, p.id, '?component=cli')).map((i) => i.title).sort()
    expect(titles).toEqual(['after rotation', 'before revoke'])
  })

  it('refuses bad labels with 400 naming the rule', async () => {
    const cases: [unknown, RegExp][] = [
      [undefined, /label is required/],
      ['', /label is required/],
      [42, /label is required/],
      ['a'.repeat(33), /too long \(33 characters\): at most 32/],
      ['Worker', /only contain lowercase letters.*"W"/],
      ['hosted app', /only contain lowercase letters.*" "/],
      ['app_1', /"_"/],
      ['1worker', /must start with a lowercase letter/],
      ['-worker', /must start with a lowercase letter/],
      ['worker-', /must not end with a dash/],
    ]
    for (const [label, detail] of cases) {
      const res = await mint(label)
      expect(res.statusCode, String(label)).toBe(400)
      expect(res.json<{ detail: string }>().detail, String(label)).toMatch(detail)
    }
    await mintKey('a')
    await mintKey('x'.repeat(32))
    await mintKey('hosted-app-2')
    const dup = await mint('hosted-app-2')
    expect(dup.statusCode).toBe(409)
    expect(dup.json<{ detail: string }>().detail).toMatch(
      /unique among the project's active keys: "hosted-app-2"/,
    )
    const notObject = await call(app, 'POST', `/api/0/projects/${p.id}/keys/`, ['worker'])
    expect(notObject.statusCode).toBe(400)
    expect((await mint('worker', 99_999)).statusCode).toBe(404)
    // The same label is fine in another project.
    const other = await createProject(app, 'other')
    expect((await mint('hosted-app-2', other.id)).statusCode).toBe(201)
  })
})
