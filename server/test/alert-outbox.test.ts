import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AlertTiming } from '../src/config.ts'
import { row } from './store-contract/contract.ts'
import { createProject, testApp } from './support/helpers.ts'
import { startWebhookReceiver, type WebhookReceiver } from './support/receivers.ts'
import { call } from './support/triage-helpers.ts'

const FAST: AlertTiming = {
  pollMs: 20,
  backoffBaseMs: 20,
  backoffMaxMs: 500,
  maxAttempts: 4,
  leaseMs: 60_000,
  sendTimeoutMs: 10_000,
}
/** A node whose alert machinery polls once at start and then not for an hour. */
const IDLE: AlertTiming = { ...FAST, pollMs: 3_600_000 }

let hook: WebhookReceiver
let dir: string
beforeAll(async () => {
  hook = await startWebhookReceiver()
  dir = await mkdtemp(join(tmpdir(), 'ingest-outbox-'))
})
afterAll(async () => {
  await hook.close()
  await rm(dir, { recursive: true, force: true })
})

describe('alert decisions recorded with the event', () => {
  it('survive the node that stored the event: another node delivers them exactly once', async () => {
    const path = join(dir, 'ingest.sqlite')
    const apps: FastifyInstance[] = []
    try {
      const a = await testApp({ databasePath: path, alerts: IDLE })
      apps.push(a)
      await a.ready()
      const p = await createProject(a, 'outbox')
      const rule = await call(a, 'POST', `/api/0/projects/${p.id}/alert-rules/`, {
        name: 'new',
        conditions: [{ type: 'new_issue' }],
        channel: { type: 'webhook', url: hook.url, format: 'json' },
      })
      expect(rule.statusCode).toBe(201)
      const store = a.services.store
      const [key] = await store.listKeys(p.id)
      // Written through the store alone: no bus notice, no trigger code after the commit, as
      // when the node dies right after it.
      const [written] = await store.write([
        { events: [row(p.id, key?.id ?? 0, 'outbox-hash')], outcomes: [] },
      ])
      expect(written?.events[0]?.issueCreated).toBe(true)
      const pending = await store.claimAlertDecisions('probe', Date.now(), 0, 10)
      expect(pending).toMatchObject([
        {
          projectId: p.id,
          kind: 'new_issue',
          triggerId: 'first',
          ruleId: rule.json<{ id: number }>().id,
        },
      ])
      // A second node, with its delivery worker running, sends it.
      const b = await testApp({ databasePath: path, alerts: FAST })
      apps.push(b)
      await b.ready()
      const [sent] = await hook.waitForAccepted(1)
      expect(sent?.body).toMatchObject({
        trigger: 'new_issue',
        issue: { id: written?.events[0]?.issueId },
      })
      // Both nodes drain again: nothing is left to send, nothing is sent twice.
      await a.alerts.idle()
      await b.alerts.idle()
      expect(await store.claimAlertDecisions('probe', Date.now(), 0, 10)).toEqual([])
      // The worker records the send after the receiver answered: poll for it.
      let statuses: string[] = []
      for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
        const log = await call(b, 'GET', `/api/0/projects/${p.id}/alert-deliveries/`)
        statuses = log.json<{ status: string }[]>().map((d) => d.status)
        if (statuses.every((s) => s === 'sent')) break
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(statuses).toEqual(['sent'])
      expect(hook.accepted()).toHaveLength(1)
    } finally {
      for (const app of apps.reverse()) await app.close()
    }
  })
  it('a frequency rule met by a group is decided in its transaction, once per window', async () => {
    const path = join(dir, 'frequency.sqlite')
    const a = await testApp({ databasePath: path, alerts: IDLE })
    try {
      await a.ready()
      const p = await createProject(a, 'frequency')
      const rule = await call(a, 'POST', `/api/0/projects/${p.id}/alert-rules/`, {
        name: 'hot',
        conditions: [{ type: 'frequency', threshold: 2, window_minutes: 60 }],
        channel: { type: 'webhook', url: hook.url, format: 'json' },
      })
      expect(rule.statusCode).toBe(201)
      const store = a.services.store
      const [key] = await store.listKeys(p.id)
      const now = Date.now()
      const event = () => ({ ...row(p.id, key?.id ?? 0, 'hot-hash'), received: now })
      // Two events: not more than the threshold, no decision.
      await store.write([{ events: [event(), event()], outcomes: [] }])
      expect(await store.claimAlertDecisions('probe', now, 0, 10)).toEqual([])
      // The third, written through the store alone (no trigger code after the commit).
      const [third] = await store.write([{ events: [event()], outcomes: [] }])
      const pending = await store.claimAlertDecisions('probe', Date.now(), 0, 10)
      expect(pending).toMatchObject([
        {
          projectId: p.id,
          issueId: third?.events[0]?.issueId,
          kind: 'frequency',
          ruleId: rule.json<{ id: number }>().id,
          triggerId: String(Math.floor(Date.now() / 3_600_000)),
        },
      ])
      // A fourth event in the same window decides nothing new (the unique key).
      await store.write([{ events: [event()], outcomes: [] }])
      expect(await store.claimAlertDecisions('probe', Date.now(), 0, 10)).toHaveLength(1)
    } finally {
      await a.close()
    }
  })
})
