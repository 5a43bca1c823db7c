/**
 * Alerts end to end with a stock SDK: the unmodified Node SDK reports into a project with a
 * webhook rule and an e-mail rule; the alerts reach a real webhook receiver and a real SMTP
 * server on loopback; a resolved issue that gets a new event regresses and alerts again; and
 * events sent with a component DSN are filterable by that component. This file starts its own
 * server, because SMTP is configured through the environment.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SmtpReceiver,
  startSmtpReceiver,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../server/test/support/receivers.ts'
import { AlertsApi } from '../harness/alerts-api.ts'
import { Api } from '../harness/api.ts'
import { loadDriver, runDriver } from '../harness/drivers.ts'
import { type RunningServer, startServer } from '../harness/server.ts'
import { waitFor } from '../harness/wait.ts'

const driver = loadDriver('node')

interface WebhookAlert {
  trigger: string
  issue: { id: number; title: string }
  event: { id: string } | null
}

let hook: WebhookReceiver
let smtp: SmtpReceiver
let server: RunningServer

beforeAll(async () => {
  hook = await startWebhookReceiver()
  smtp = await startSmtpReceiver()
  server = await startServer({
    env: {
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_FROM: 'alerts@conformance.test',
      ALERT_POLL_MS: '50',
      ALERT_BACKOFF_MS: '50',
      // The webhook receiver listens on loopback.
      ALERT_ALLOW_PRIVATE_TARGETS: '1',
    },
  })
})

afterAll(async () => {
  await server?.stop()
  await hook?.close()
  await smtp?.close()
})

describe('alerts with the stock Node SDK', () => {
  it.skipIf(driver.missing !== undefined)(
    'new issues and a regression alert by webhook and e-mail; component DSN events filter by component',
    async () => {
      const api = new Api(server.url, server.adminToken)
      const alerts = new AlertsApi(server.url, server.adminToken)
      const project = await api.createProject('alerts')
      await alerts.createRule(project.id, {
        name: 'chat',
        conditions: [{ type: 'new_issue' }, { type: 'regression' }],
        channel: { type: 'webhook', url: hook.url, format: 'json' },
      })
      await alerts.createRule(project.id, {
        name: 'mail',
        conditions: [{ type: 'new_issue' }, { type: 'regression' }],
        channel: { type: 'email', to: ['oncall@conformance.test'] },
      })

      // First run: one exception issue and one message issue, each new: two alerts per channel.
      const first = await runDriver(driver, { scenario: 'grouping', dsn: project.dsn })
      const received = await hook.waitForAccepted(2, 10_000)
      const mails = await smtp.waitForMessages(2, 10_000)
      const bodies = received.map((r) => r.body as WebhookAlert)
      expect(bodies.map((b) => b.trigger)).toEqual(['new_issue', 'new_issue'])
      const exceptionEvent = first.groups['exception']?.[0]
      const exceptionAlert = bodies.find((b) => b.issue.title.startsWith('Error: conformance boom'))
      expect(exceptionAlert, 'an alert for the exception issue').toBeDefined()
      const issueId = exceptionAlert?.issue.id ?? 0
      expect(first.event_ids).toContain(exceptionAlert?.event?.id)
      expect(mails.map((m) => m.subject).sort()).toEqual(
        bodies.map((b) => `[alerts] New issue: ${b.issue.title}`).sort(),
      )
      expect(mails[0]?.rcptTo).toEqual(['oncall@conformance.test'])
      expect(exceptionEvent).toBeDefined()

      // Resolve the exception issue; the SDK's next report of it is a regression.
      await alerts.updateIssue(issueId, { status: 'resolved' })
      const second = await runDriver(driver, { scenario: 'grouping', dsn: project.dsn })
      const afterRegression = await hook.waitForAccepted(3, 10_000)
      const regression = afterRegression[2]?.body as WebhookAlert
      expect(regression).toMatchObject({ trigger: 'regression', issue: { id: issueId } })
      expect(second.groups['exception']).toContain(regression.event?.id)
      const regressionMail = (await smtp.waitForMessages(3, 10_000))[2]
      expect(regressionMail?.subject).toBe(`[alerts] Regression: ${regression.issue.title}`)
      expect((await api.issue(issueId)).status).toBe('unresolved')

      const log = await waitFor(
        async () => {
          const list = await alerts.deliveries(project.id)
          return list.length === 6 && list.every((d) => d.status === 'sent') ? list : undefined
        },
        { timeout: 10_000, message: 'six sent deliveries' },
      )
      expect(
        log
          .filter((d) => d.trigger === 'regression')
          .map((d) => d.channel)
          .sort(),
      ).toEqual(['email', 'webhook'])

      // A component DSN: its events join the same issues and filter by component.
      expect(await alerts.issueIds(project.id, '?component=worker')).toEqual([])
      const worker = await alerts.createComponentKey(project.id, 'worker')
      const third = await runDriver(driver, { scenario: 'grouping', dsn: worker.dsn })
      const workerIssues = await waitFor(
        async () => {
          const ids = await alerts.issueIds(project.id, '?component=worker')
          return ids.length === 2 ? ids : undefined
        },
        { timeout: 10_000, message: 'both issues under component worker' },
      )
      expect(workerIssues).toContain(issueId)
      for (const id of third.event_ids) {
        expect((await api.event(project.id, id))?.['component'], id).toBe('worker')
      }
      for (const id of first.event_ids) {
        expect((await api.event(project.id, id))?.['component'], id).toBeNull()
      }
      expect(await alerts.issueIds(project.id, '?component=cli')).toEqual([])
    },
  )
})
