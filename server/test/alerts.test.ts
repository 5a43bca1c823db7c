import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { AlertWorker } from '../src/alerts/worker.ts'
import type { AlertTiming, Config, SmtpConfig } from '../src/config.ts'
import { createProject, type TestProject, testApp } from './support/helpers.ts'
import {
  type SmtpReceiver,
  startSmtpReceiver,
  startWebhookReceiver,
  type WebhookReceiver,
} from './support/receivers.ts'
import { call, getIssue, listIssues, sendEvent } from './support/triage-helpers.ts'

/** Fast timing: retries after 20, 40, 80 ms; four attempts. */
const FAST: AlertTiming = {
  pollMs: 20,
  backoffBaseMs: 20,
  backoffMaxMs: 500,
  maxAttempts: 4,
  leaseMs: 60_000,
  sendTimeoutMs: 10_000,
}

interface Delivery {
  id: number
  rule: { id: number; name: string }
  issue_id: number
  event_id: string | null
  trigger: string
  channel: string
  target: string
  status: string
  attempts: number
  last_error: string | null
  next_attempt_at: string | null
  sent_at: string | null
}

interface AlertBody {
  trigger: string
  delivery_id: number
  text: string
  rule: { id: number; name: string }
  project: { id: number; slug: string }
  issue: { id: number; title: string; url: string; count: number; status: string }
  event: { id: string; component: string | null; environment: string | null } | null
  frequency?: { count: number; threshold: number; window_minutes: number }
}

let hook: WebhookReceiver
let smtp: SmtpReceiver
let smtpConfig: SmtpConfig

beforeAll(async () => {
  hook = await startWebhookReceiver()
  smtp = await startSmtpReceiver()
  smtpConfig = {
    host: smtp.host,
    port: smtp.port,
    secure: false,
    from: 'alerts@ingest.test',
    user: undefined,
    password: undefined,
  }
})

afterAll(async () => {
  await hook.close()
  await smtp.close()
})

/** A number as letters (a, b, … z, ba, …): grouping folds digits, so titles must not differ by them. */
const word = (n: number): string =>
  (n >= 26 ? word(Math.floor(n / 26)) : '') + String.fromCharCode(97 + (n % 26))

const apps: FastifyInstance[] = []
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()))
  hook.requests.length = 0
  hook.failNext(0)
  smtp.messages.length = 0
  smtp.failNext(0)
})

async function alertApp(overrides: Partial<Config> = {}): Promise<FastifyInstance> {
  const app = await testApp({ smtp: smtpConfig, alerts: FAST, ...overrides })
  apps.push(app)
  await app.ready()
  return app
}

async function addRule(app: FastifyInstance, projectId: number, rule: Record<string, unknown>) {
  const res = await call(app, 'POST', `/api/0/projects/${projectId}/alert-rules/`, {
    name: 'rule',
    ...rule,
  })
  if (res.statusCode !== 201) throw new Error(`rule create failed: ${res.statusCode} ${res.body}`)
  return res.json<{ id: number }>()
}

const webhookRule = (format: 'json' | 'slack' = 'json', conditions?: unknown[]) => ({
  conditions: conditions ?? [{ type: 'new_issue' }, { type: 'regression' }],
  channel: { type: 'webhook', url: hook.url, format },
})

async function deliveries(app: FastifyInstance, projectId: number, query = '') {
  const res = await call(app, 'GET', `/api/0/projects/${projectId}/alert-deliveries/${query}`)
  expect(res.statusCode).toBe(200)
  return res.json<Delivery[]>()
}

/** Polls the delivery log until no delivery is pending and `n` exist. */
async function settled(app: FastifyInstance, projectId: number, n: number): Promise<Delivery[]> {
  const deadline = Date.now() + 5_000
  for (;;) {
    await app.alerts.idle()
    const list = await deliveries(app, projectId)
    if (list.length >= n && list.every((d) => d.status !== 'pending')) return list
    if (Date.now() > deadline)
      throw new Error(`deliveries did not settle: ${JSON.stringify(list, null, 1)}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

describe('alert rules API', () => {
  let app: FastifyInstance
  let p: TestProject
  beforeEach(async () => {
    app = await alertApp()
    p = await createProject(app)
  })

  it('creates, lists and deletes rules', async () => {
    const res = await call(app, 'POST', `/api/0/projects/${p.id}/alert-rules/`, {
      name: '  Ops room  ',
      conditions: [{ type: 'frequency', threshold: 100, window_minutes: 60 }],
      channel: { type: 'webhook', url: 'https://chat.example/hooks/T1' },
    })
    expect(res.statusCode).toBe(201)
    const rule = res.json<{ id: number }>()
    expect(rule).toMatchObject({
      name: 'Ops room',
      project_id: p.id,
      conditions: [{ type: 'frequency', threshold: 100, window_minutes: 60 }],
      channel: { type: 'webhook', url: 'https://chat.example/hooks/T1', format: 'json' },
    })
    await addRule(app, p.id, {
      channel: { type: 'email', to: ['ops@example.com'] },
      conditions: [{ type: 'regression' }],
    })
    const list = await call(app, 'GET', `/api/0/projects/${p.id}/alert-rules/`)
    expect(list.json<{ name: string }[]>().map((r) => r.name)).toEqual(['Ops room', 'rule'])

    const del = await call(app, 'DELETE', `/api/0/projects/${p.id}/alert-rules/${rule.id}/`)
    expect(del.statusCode).toBe(204)
    expect((await call(app, 'GET', `/api/0/projects/${p.id}/alert-rules/`)).json()).toHaveLength(1)
    const again = await call(app, 'DELETE', `/api/0/projects/${p.id}/alert-rules/${rule.id}/`)
    expect(again.statusCode).toBe(404)
    expect((await call(app, 'GET', '/api/0/projects/4242/alert-rules/')).statusCode).toBe(404)
    expect((await call(app, 'GET', '/api/0/projects/4242/alert-deliveries/')).statusCode).toBe(404)
  })

  it('refuses bad rules with 400 and a detail naming the field', async () => {
    const hookChannel = { type: 'webhook', url: hook.url }
    const cases: [unknown, RegExp][] = [
      [{ conditions: [{ type: 'new_issue' }], channel: hookChannel }, /name/],
      [{ name: 'x', conditions: [], channel: hookChannel }, /conditions/],
      [{ name: 'x', conditions: [{ type: 'sometimes' }], channel: hookChannel }, /conditions/],
      [
        { name: 'x', conditions: [{ type: 'frequency', threshold: 5 }], channel: hookChannel },
        /window_minutes/,
      ],
      [
        {
          name: 'x',
          conditions: [{ type: 'frequency', threshold: 0, window_minutes: 5 }],
          channel: hookChannel,
        },
        /threshold/,
      ],
      [
        {
          name: 'x',
          conditions: [{ type: 'new_issue' }, { type: 'new_issue' }],
          channel: hookChannel,
        },
        /each condition type may appear once/,
      ],
      [
        {
          name: 'x',
          conditions: [{ type: 'new_issue' }],
          channel: { type: 'webhook', url: 'ftp://x/y' },
        },
        /url/,
      ],
      [
        {
          name: 'x',
          conditions: [{ type: 'new_issue' }],
          channel: { type: 'webhook', url: hook.url, format: 'xml' },
        },
        /format/,
      ],
      [
        {
          name: 'x',
          conditions: [{ type: 'new_issue' }],
          channel: { type: 'email', to: ['not-an-address'] },
        },
        /to/,
      ],
      [
        { name: 'x', conditions: [{ type: 'new_issue' }], channel: { type: 'email', to: [] } },
        /to/,
      ],
      [{ name: 'x', conditions: [{ type: 'new_issue' }], channel: { type: 'pager' } }, /channel/],
      [{ name: 'x', conditions: [{ type: 'new_issue' }], channel: hookChannel, extra: 1 }, /extra/],
      [['an', 'array'], /alert rule/],
    ]
    for (const [body, detail] of cases) {
      const res = await call(app, 'POST', `/api/0/projects/${p.id}/alert-rules/`, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json<{ detail: string }>().detail, JSON.stringify(body)).toMatch(detail)
    }
    expect((await call(app, 'GET', `/api/0/projects/${p.id}/alert-rules/`)).json()).toEqual([])
  })

  it('refuses an e-mail rule when the server has no SMTP server configured', async () => {
    const bare = await alertApp({ smtp: undefined })
    const q = await createProject(bare)
    const res = await call(bare, 'POST', `/api/0/projects/${q.id}/alert-rules/`, {
      name: 'mail',
      conditions: [{ type: 'new_issue' }],
      channel: { type: 'email', to: ['ops@example.com'] },
    })
    expect(res.statusCode).toBe(400)
    expect(res.json<{ detail: string }>().detail).toMatch(/SMTP_HOST/)
  })
})

describe('alerting on issues', () => {
  let app: FastifyInstance
  let p: TestProject
  beforeEach(async () => {
    app = await alertApp()
    p = await createProject(app, 'Shop')
  })

  it('a new issue posts one JSON alert to the webhook; more events of it do not', async () => {
    const rule = await addRule(app, p.id, { name: 'hook', ...webhookRule() })
    const eventId = await sendEvent(app, p.id, p.key, 'checkout failed', { environment: 'prod' })
    await sendEvent(app, p.id, p.key, 'checkout failed')
    await sendEvent(app, p.id, p.key, 'checkout failed')
    const [got] = await hook.waitForAccepted(1)
    const [issue] = await listIssues(app, p.id)
    const body = got?.body as AlertBody
    expect(got?.headers['content-type']).toBe('application/json')
    expect(got?.headers['x-ingest-delivery']).toBe(String(body.delivery_id))
    expect(body).toMatchObject({
      trigger: 'new_issue',
      rule: { id: rule.id, name: 'hook' },
      project: { id: p.id, slug: 'shop' },
      issue: { id: issue?.id, title: 'checkout failed', status: 'unresolved' },
      event: { id: eventId, component: null, environment: 'prod' },
      text: '[shop] New issue: checkout failed',
    })
    expect(body.issue.url).toMatch(new RegExp(`/projects/${p.id}/issues/${issue?.id}/$`))

    const log = await settled(app, p.id, 1)
    expect(log).toEqual([
      expect.objectContaining({
        id: body.delivery_id,
        rule: { id: rule.id, name: 'hook' },
        issue_id: issue?.id,
        event_id: eventId,
        trigger: 'new_issue',
        channel: 'webhook',
        target: hook.url,
        status: 'sent',
        attempts: 1,
        last_error: null,
      }),
    ])
    expect(hook.requests).toHaveLength(1)
  })

  it('a resolved issue that gets a new event regresses and alerts again', async () => {
    await addRule(app, p.id, webhookRule())
    await sendEvent(app, p.id, p.key, 'flaky job')
    await hook.waitForAccepted(1)
    const [issue] = await listIssues(app, p.id)
    if (issue === undefined) throw new Error('no issue')
    await call(app, 'PUT', `/api/0/issues/${issue.id}/`, { status: 'resolved' })

    const regressing = await sendEvent(app, p.id, p.key, 'flaky job')
    const [, second] = await hook.waitForAccepted(2)
    expect(second?.body).toMatchObject({
      trigger: 'regression',
      event: { id: regressing },
      text: '[shop] Regression: flaky job',
      issue: { status: 'unresolved', count: 2 },
    })
    // It is unresolved now: the next event is no regression.
    await sendEvent(app, p.id, p.key, 'flaky job')
    const log = await settled(app, p.id, 2)
    expect(log.map((d) => d.trigger)).toEqual(['regression', 'new_issue'])
    expect(hook.requests).toHaveLength(2)

    // A second resolve/regress cycle alerts once more (each regression is its own trigger).
    await call(app, 'PUT', `/api/0/issues/${issue.id}/`, { status: 'resolved' })
    await sendEvent(app, p.id, p.key, 'flaky job')
    await hook.waitForAccepted(3)
    expect((await settled(app, p.id, 3)).map((d) => d.trigger)).toEqual([
      'regression',
      'regression',
      'new_issue',
    ])
  })

  it('posts a Slack-compatible body when the rule says format slack', async () => {
    await addRule(app, p.id, webhookRule('slack', [{ type: 'new_issue' }]))
    await sendEvent(app, p.id, p.key, 'a <b> & c')
    const [got] = await hook.waitForAccepted(1)
    const body = got?.body as {
      text: string
      blocks: { type: string; text?: { text: string }; fields?: { text: string }[] }[]
    }
    expect(body.text).toBe('[shop] New issue: a <b> & c')
    expect(body.blocks[0]).toMatchObject({ type: 'section', text: { type: 'mrkdwn' } })
    expect(body.blocks[0]?.text?.text).toMatch(
      /^\*<http:\/\/.+\/issues\/\d+\/\|\[shop\] New issue: a &lt;b&gt; &amp; c>\*$/,
    )
    expect(body.blocks[1]?.fields?.map((f) => f.text)).toContain('*Events*\n1')
    expect(body).not.toHaveProperty('issue')
  })

  it('an issue seen more than N times in M minutes alerts once for the window', async () => {
    await addRule(
      app,
      p.id,
      webhookRule('json', [{ type: 'frequency', threshold: 2, window_minutes: 10 }]),
    )
    for (let i = 0; i < 2; i++) await sendEvent(app, p.id, p.key, 'hot loop')
    await app.alerts.idle()
    expect(await deliveries(app, p.id)).toEqual([])

    await sendEvent(app, p.id, p.key, 'hot loop')
    const [got] = await hook.waitForAccepted(1)
    expect(got?.body).toMatchObject({
      trigger: 'frequency',
      frequency: { count: 3, threshold: 2, window_minutes: 10 },
      text: '[shop] Seen 3 times in 10 min: hot loop',
    })
    for (let i = 0; i < 3; i++) await sendEvent(app, p.id, p.key, 'hot loop')
    expect(await settled(app, p.id, 1)).toHaveLength(1)
    expect(hook.requests).toHaveLength(1)
  })

  it('ignored issues do not alert; deleted rules stop alerting', async () => {
    const rule = await addRule(
      app,
      p.id,
      webhookRule('json', [{ type: 'frequency', threshold: 1, window_minutes: 60 }]),
    )
    await sendEvent(app, p.id, p.key, 'muted')
    const [issue] = await listIssues(app, p.id)
    if (issue === undefined) throw new Error('no issue')
    await call(app, 'PUT', `/api/0/issues/${issue.id}/`, { status: 'ignored' })
    await sendEvent(app, p.id, p.key, 'muted')
    await sendEvent(app, p.id, p.key, 'muted')
    await app.alerts.idle()
    expect(await deliveries(app, p.id)).toEqual([])

    await call(app, 'DELETE', `/api/0/projects/${p.id}/alert-rules/${rule.id}/`)
    await call(app, 'PUT', `/api/0/issues/${issue.id}/`, { status: 'unresolved' })
    await sendEvent(app, p.id, p.key, 'muted')
    await app.alerts.idle()
    expect(await deliveries(app, p.id)).toEqual([])
    expect(hook.requests).toEqual([])
  })
})

describe('delivery: retries, giving up, e-mail', () => {
  let app: FastifyInstance
  let p: TestProject
  beforeEach(async () => {
    app = await alertApp()
    p = await createProject(app, 'Shop')
  })

  it('retries with back-off while the receiver fails, then sends once', async () => {
    await addRule(app, p.id, webhookRule())
    hook.failNext(2)
    const started = Date.now()
    await sendEvent(app, p.id, p.key, 'retry me')
    await hook.waitForAccepted(1)
    // Two failures wait 20 then 40 ms before the third attempt.
    expect(Date.now() - started).toBeGreaterThanOrEqual(55)
    const [d] = await settled(app, p.id, 1)
    expect(d).toMatchObject({ status: 'sent', attempts: 3, next_attempt_at: null })
    expect(d?.last_error).toMatch(/HTTP 503/)
    expect(hook.requests.map((r) => r.status)).toEqual([503, 503, 204])
    const ids = new Set(hook.requests.map((r) => r.headers['x-ingest-delivery']))
    expect(ids.size).toBe(1)
  })

  it('gives up after the maximum attempts, and at once on a permanent refusal', async () => {
    await addRule(app, p.id, webhookRule())
    hook.failNext(100)
    await sendEvent(app, p.id, p.key, 'never delivered')
    const [gaveUp] = await settled(app, p.id, 1)
    expect(gaveUp).toMatchObject({ status: 'failed', attempts: 4, sent_at: null })
    expect(hook.requests).toHaveLength(4)

    hook.requests.length = 0
    hook.failNext(1, 410)
    await sendEvent(app, p.id, p.key, 'gone receiver')
    const log = await settled(app, p.id, 2)
    expect(log[0]).toMatchObject({ status: 'failed', attempts: 1 })
    expect(log[0]?.last_error).toMatch(/HTTP 410/)
    expect(hook.requests).toHaveLength(1)
    expect((await deliveries(app, p.id, '?status=failed')).length).toBe(2)
    expect(await deliveries(app, p.id, '?status=sent')).toEqual([])
  })

  it('e-mails an alert through SMTP, retrying a transient refusal', async () => {
    await addRule(app, p.id, {
      name: 'mail',
      conditions: [{ type: 'new_issue' }],
      channel: { type: 'email', to: ['ops@example.com', 'dev@example.com'] },
    })
    smtp.failNext(1)
    await sendEvent(app, p.id, p.key, 'disk full', { release: 'shop@2.0.1' })
    const [mail] = await smtp.waitForMessages(1)
    const [issue] = await listIssues(app, p.id)
    expect(mail).toMatchObject({
      mailFrom: 'alerts@ingest.test',
      rcptTo: ['ops@example.com', 'dev@example.com'],
      subject: '[shop] New issue: disk full',
    })
    expect(mail?.text).toContain('disk full')
    expect(mail?.text).toMatch(/Release:\s+shop@2\.0\.1/)
    expect(mail?.text).toContain(`/projects/${p.id}/issues/${issue?.id}/`)
    const [d] = await settled(app, p.id, 1)
    expect(d).toMatchObject({
      channel: 'email',
      target: 'ops@example.com, dev@example.com',
      status: 'sent',
      attempts: 2,
    })
    expect(d?.last_error).toMatch(/451/)
    expect(mail?.messageId).toBe(`<alert-${d?.id}@ingest.test>`)
    expect(smtp.messages).toHaveLength(1)
  })

  it('deleting a rule cancels its deliveries still waiting for a retry', async () => {
    // A retry due in one minute (FAST's cap would make it 500 ms: due before a slow delete).
    const slow = await alertApp({
      alerts: { ...FAST, backoffBaseMs: 60_000, backoffMaxMs: 60_000 },
    })
    const q = await createProject(slow)
    const rule = await addRule(slow, q.id, webhookRule())
    hook.failNext(1)
    await sendEvent(slow, q.id, q.key, 'waits for retry')
    const deadline = Date.now() + 5_000
    while ((await deliveries(slow, q.id))[0]?.attempts !== 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10))
    expect((await deliveries(slow, q.id))[0]).toMatchObject({ status: 'pending', attempts: 1 })
    await call(slow, 'DELETE', `/api/0/projects/${q.id}/alert-rules/${rule.id}/`)
    expect((await deliveries(slow, q.id))[0]).toMatchObject({
      status: 'failed',
      last_error: 'rule deleted',
    })
  })

  it('pages the delivery log newest first with a cursor', async () => {
    await addRule(app, p.id, webhookRule('json', [{ type: 'new_issue' }]))
    for (let i = 0; i < 5; i++) await sendEvent(app, p.id, p.key, `paged ${word(i)}`)
    await settled(app, p.id, 5)
    const first = await call(app, 'GET', `/api/0/projects/${p.id}/alert-deliveries/?limit=3`)
    const cursor = first.headers['x-next-cursor']
    expect(typeof cursor).toBe('string')
    const rest = await deliveries(app, p.id, `?limit=3&cursor=${String(cursor)}`)
    const all = [...first.json<Delivery[]>(), ...rest].map((d) => d.id)
    expect(all).toHaveLength(5)
    expect(all).toEqual([...all].sort((a, b) => b - a))
    const [one] = await listIssues(app, p.id)
    expect(await deliveries(app, p.id, `?issue_id=${one?.id}`)).toHaveLength(1)
    expect(
      (await call(app, 'GET', `/api/0/projects/${p.id}/alert-deliveries/?status=lost`)).statusCode,
    ).toBe(400)
  })
})

describe('several nodes on one database', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'ingest-alerts-'))
  })
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((a) => a.close()))
    await rm(dir, { recursive: true, force: true })
  })

  it('two nodes draining one outbox send every delivery exactly once', async () => {
    const databasePath = join(dir, 'shared.sqlite')
    const a = await alertApp({ databasePath })
    const b = await alertApp({ databasePath })
    const p = await createProject(a)
    await addRule(a, p.id, webhookRule('json', [{ type: 'new_issue' }]))
    const n = 30
    await Promise.all(
      Array.from({ length: n }, (_, i) =>
        sendEvent(i % 2 === 0 ? a : b, p.id, p.key, `node issue ${word(i)}`),
      ),
    )
    await hook.waitForAccepted(n)
    const log = await settled(a, p.id, n)
    expect(log.every((d) => d.status === 'sent' && d.attempts === 1)).toBe(true)
    // A positive control instead of a sleep: one more issue through each node is delivered, so
    // both workers have drained their outbox again since; a duplicate would have arrived too.
    await sendEvent(a, p.id, p.key, `node issue ${word(n)}`)
    await sendEvent(b, p.id, p.key, `node issue ${word(n + 1)}`)
    await hook.waitForAccepted(n + 2)
    await settled(a, p.id, n + 2)
    const ids = hook.requests.map((r) => r.headers['x-ingest-delivery'])
    expect(ids).toHaveLength(n + 2)
    expect(new Set(ids).size).toBe(n + 2)
  })

  it('claims are exclusive across connections and a trigger is written down once', async () => {
    const databasePath = join(dir, 'claims.sqlite')
    const a = await alertApp({ databasePath, alerts: { ...FAST, pollMs: 60_000 } })
    const b = await alertApp({ databasePath, alerts: { ...FAST, pollMs: 60_000 } })
    const p = await createProject(a)
    const rule = await addRule(a, p.id, webhookRule('json', [{ type: 'new_issue' }]))
    await sendEvent(a, p.id, p.key, 'anchor issue')
    await settled(a, p.id, 1)
    const [issue] = await listIssues(a, p.id)
    const row = (i: number) => ({
      ruleId: rule.id,
      projectId: p.id,
      issueId: issue?.id ?? 0,
      triggerKind: 'regression' as const,
      triggerId: `event-${i}`,
      eventId: null,
      channel: { type: 'webhook' as const, url: hook.url, format: 'json' as const },
      message: '{}',
      at: Date.now(),
    })
    const rows = Array.from({ length: 40 }, (_, i) => row(i))
    // Both nodes see the same triggers: each is written down once.
    const [fromA, fromB] = await Promise.all([
      a.services.store.enqueueDeliveries(rows),
      b.services.store.enqueueDeliveries(rows),
    ])
    expect(fromA.length + fromB.length).toBe(40)
    const taken = { a: [] as number[], b: [] as number[] }
    for (let round = 0; round < 10; round++) {
      const [x, y] = await Promise.all([
        a.services.store.claimDeliveries('node-a', Date.now(), 60_000, 3),
        b.services.store.claimDeliveries('node-b', Date.now(), 60_000, 3),
      ])
      taken.a.push(...x.map((d) => d.id))
      taken.b.push(...y.map((d) => d.id))
    }
    const all = [...taken.a, ...taken.b]
    expect(all).toHaveLength(40)
    expect(new Set(all).size).toBe(40)
    expect(taken.a.length).toBeGreaterThan(0)
    expect(taken.b.length).toBeGreaterThan(0)
    // Only the holder of a claim can record its attempt.
    const first = taken.a[0] ?? 0
    const ok = { ok: true as const, at: Date.now() }
    expect(await b.services.store.finishAttempt(first, 'node-b', ok)).toBe(false)
    expect(await a.services.store.finishAttempt(first, 'node-a', ok)).toBe(true)
  })

  it("survives a restart: a pending retry and a dead node's claim are sent by the next worker", async () => {
    const databasePath = join(dir, 'restart.sqlite')
    // A retry due in one minute (FAST's cap would make it 500 ms: due before a slow restart).
    const first = await alertApp({
      databasePath,
      alerts: { ...FAST, backoffBaseMs: 60_000, backoffMaxMs: 60_000 },
    })
    const p = await createProject(first)
    await addRule(first, p.id, webhookRule('json', [{ type: 'new_issue' }]))
    hook.failNext(1)
    await sendEvent(first, p.id, p.key, 'before restart')
    const deadline = Date.now() + 5_000
    while ((await deliveries(first, p.id))[0]?.attempts !== 1 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10))
    // Stop this node's worker: the next delivery is written down but left to a "dead node".
    await first.alerts.worker.stop()
    await sendEvent(first, p.id, p.key, 'claimed by a dead node')
    await first.alerts.idle()
    const claimedByDead = await first.services.store.claimDeliveries(
      'dead-node',
      Date.now(),
      60_000,
      10,
    )
    expect(claimedByDead.map((d) => d.attempts)).toEqual([0])
    apps.splice(apps.indexOf(first), 1)
    await first.close()
    expect(hook.accepted()).toHaveLength(0)

    const second = await testApp({ databasePath, alerts: { ...FAST, pollMs: 60_000 } })
    apps.push(second)
    const log = { warn: () => {} }
    const now = new AlertWorker(
      second.services.store,
      { ...FAST, smtp: undefined, allowPrivateTargets: true },
      log,
    )
    // The retry is not due yet and the dead node's lease still holds.
    expect(await now.runOnce()).toBe(0)
    // A minute later both are due: the retry's time came and the dead node's lease expired.
    const later = new AlertWorker(
      second.services.store,
      { ...FAST, smtp: undefined, allowPrivateTargets: true, now: () => Date.now() + 61_000 },
      log,
    )
    expect(await later.runOnce()).toBe(2)
    expect(await later.runOnce()).toBe(0)
    await now.stop()
    await later.stop()
    const sent = await deliveries(second, p.id)
    expect(sent.map((d) => [d.status, d.attempts])).toEqual([
      ['sent', 1],
      ['sent', 2],
    ])
    expect(hook.accepted()).toHaveLength(2)
    expect((await getIssue(second, sent[0]?.issue_id ?? 0)).title).toBe('claimed by a dead node')
  })
})
