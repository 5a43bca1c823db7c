/**
 * The web UI in headless Chromium against the real server process: sign in, a stock SDK's
 * events appear live, triage, a regression alerts a real webhook receiver and SMTP server, a
 * component DSN filters, event HTML stays text, a form without its CSRF token is refused.
 * Every page is saved as `artifacts/screenshots/<name>.png`. The steps share one browser
 * session and run in order; this file starts its own server (admin login and SMTP are
 * configured through the environment).
 */
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type SmtpReceiver,
  startSmtpReceiver,
  startWebhookReceiver,
  type WebhookReceiver,
} from '../../../server/test/support/receivers.ts'
import { Api } from '../harness/api.ts'
import { type Browser, launchBrowser, screenshot } from '../harness/browser.ts'
import { loadDriver, runDriver } from '../harness/drivers.ts'
import { type RunningServer, startServer } from '../harness/server.ts'
import { waitFor } from '../harness/wait.ts'

const EMAIL = 'admin@ui.test'
const PASSWORD = 'a long browser password'
const node = loadDriver('node')

let server: RunningServer
let hook: WebhookReceiver
let smtp: SmtpReceiver
let browser: Browser
let page: Page
let api: Api
const dialogs: string[] = []
/** Shared between the ordered steps. */
const state = { projectId: 0, dsn: '', exceptionIssue: 0, xssIssue: 0 }

beforeAll(async () => {
  hook = await startWebhookReceiver()
  smtp = await startSmtpReceiver()
  server = await startServer({
    env: {
      INGEST_ADMIN_EMAIL: EMAIL,
      INGEST_ADMIN_PASSWORD: PASSWORD,
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_FROM: 'alerts@ui.test',
      ALERT_POLL_MS: '50',
      ALERT_BACKOFF_MS: '50',
      // The webhook receiver listens on loopback.
      ALERT_ALLOW_PRIVATE_TARGETS: '1',
    },
  })
  api = new Api(server.url, server.adminToken)
  browser = await launchBrowser()
  page = await browser.context.newPage()
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
})

afterAll(async () => {
  await browser?.close()
  await server?.stop()
  await hook?.close()
  await smtp?.close()
})

const go = async (path: string) => {
  const res = await page.goto(`${server.url}${path}`)
  expect(res?.status(), path).toBe(200)
}

/** Sends one raw envelope with an event (for payloads no stock SDK would produce). */
async function sendRaw(dsn: string, item: string, payload: Record<string, unknown>) {
  const u = new URL(dsn)
  const res = await fetch(`${u.origin}/api${u.pathname}/envelope/?sentry_key=${u.username}`, {
    method: 'POST',
    body: `{}\n{"type":"${item}"}\n${JSON.stringify(payload)}`,
  })
  expect(res.status).toBe(200)
}

const issueRows = () => page.locator('#issue-list tr[data-issue]')

describe.skipIf(node.missing !== undefined)('web UI in Chromium', () => {
  it('signs in with e-mail and password', async () => {
    await go('/projects')
    expect(page.url()).toContain('/login?next=')
    await screenshot(page, 'login')
    await page.fill('#email', EMAIL)
    await page.fill('#password', PASSWORD)
    await Promise.all([page.waitForURL(/\/projects$/), page.click('button[type=submit]')])
    await expect.poll(() => page.locator('.top .who').textContent()).toContain(EMAIL)
    const cookies = await browser.context.cookies()
    expect(cookies.find((c) => c.name === 'ingest_session')).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
    })
  })

  it('creates a project and shows its DSN and SDK snippets', async () => {
    await page.fill('input[name=name]', 'Browser shop')
    await Promise.all([
      page.waitForURL(/\/projects\/\d+\/setup\?created=1$/),
      page.click('button:has-text("Create project")'),
    ])
    state.projectId = Number(/\/projects\/(\d+)\//.exec(page.url())?.[1])
    state.dsn = await page.inputValue('#dsn')
    expect(state.dsn).toMatch(
      new RegExp(`^http://[0-9a-f]{32}@127\\.0\\.0\\.1:\\d+/${state.projectId}$`),
    )
    for (const id of ['node', 'browser', 'python', 'rust']) {
      await expect.poll(() => page.locator(`#snippet-${id}`).textContent()).toContain(state.dsn)
    }
    expect(await page.locator('#snippet-python').textContent()).toContain('traces_sample_rate=0')
    expect(await page.textContent('.snippets')).toContain('before anything else is imported')
    await screenshot(page, 'project-setup')
    await go('/projects')
    await screenshot(page, 'projects')
  })

  it('creates webhook and e-mail alert rules in the settings', async () => {
    await go(`/projects/${state.projectId}/settings`)
    await page.fill('#rule-name', 'Chat webhook')
    await page.fill('input[name=url]', hook.url)
    await Promise.all([
      page.waitForURL(/done=rule/),
      page.click('button:has-text("Create alert rule")'),
    ])
    await page.fill('#rule-name', 'On-call mail')
    await page.check('#ch-email')
    await page.fill('input[name=to]', 'oncall@ui.test')
    await Promise.all([
      page.waitForURL(/done=rule/),
      page.click('button:has-text("Create alert rule")'),
    ])
    expect(await page.textContent('body')).toContain('oncall@ui.test')
  })

  it('shows a stock SDK event live, within a second, without a reload', async () => {
    await go(`/projects/${state.projectId}/issues`)
    await page.locator('[data-live-note].on').waitFor({ timeout: 5_000 })
    expect(await issueRows().count()).toBe(0)
    await page.evaluate('window.__sameDocument = true')
    const report = await runDriver(node, { scenario: 'grouping', dsn: state.dsn })
    const sent = Date.now()
    // Polled through the locator (the utility world): a string predicate of waitForFunction
    // is evaluated in the page, where the UI's CSP (no 'unsafe-eval') refuses it once it has to
    // poll, which made this wait fail whenever the update took longer than the first look.
    await expect.poll(() => issueRows().count(), { timeout: 1_000, interval: 25 }).toBe(2)
    expect(Date.now() - sent).toBeLessThan(1_000)
    await expect
      .poll(() => page.textContent('#issue-list'), { timeout: 1_000 })
      .toMatch(/Error: conformance boom[\s\S]*2|2[\s\S]*Error: conformance boom/)
    await expect
      .poll(() => page.textContent('.tabs a[data-tab=unresolved] .count'), { timeout: 1_000 })
      .toBe('2')
    expect(await page.evaluate('window.__sameDocument')).toBe(true)
    const exceptionEvent = report.groups['exception']?.[0] ?? ''
    state.exceptionIssue = Number((await api.event(state.projectId, exceptionEvent))?.issue_id)
    await screenshot(page, 'issues-live')
  })

  it('opens the issue, shows the event and resolves it', async () => {
    await Promise.all([
      page.waitForURL(new RegExp(`/issues/${state.exceptionIssue}$`)),
      page.click('#issue-list a:has-text("Error: conformance boom")'),
    ])
    const body = (await page.textContent('main')) ?? ''
    expect(body).toContain('conformance boom')
    expect(body).toContain('conformance@1.0.0')
    expect(await page.locator('.frame').count()).toBeGreaterThan(0)
    expect(await page.locator('svg.chart rect.bar').count()).toBeGreaterThan(0)
    await screenshot(page, 'issue-detail')
    await Promise.all([page.waitForURL(/\/issues\/\d+$/), page.click('button:has-text("Resolve")')])
    expect(await page.locator('.badge.resolved').count()).toBe(1)
    expect((await api.issue(state.exceptionIssue)).status).toBe('resolved')
    // The two new issues alerted on both channels.
    await hook.waitForAccepted(2, 10_000)
    await smtp.waitForMessages(2, 10_000)
  })

  it('regresses on the next event and alerts the webhook and SMTP receivers', async () => {
    await runDriver(node, { scenario: 'grouping', dsn: state.dsn })
    const calls = await hook.waitForAccepted(3, 10_000)
    const regression = calls
      .map((c) => c.body as { trigger?: string; issue?: { id?: number; url?: string } })
      .find((b) => b.trigger === 'regression')
    expect(regression?.issue?.id).toBe(state.exceptionIssue)
    const mails = await smtp.waitForMessages(3, 10_000)
    expect(mails.map((m) => m.subject)).toContain(
      '[browser-shop] Regression: Error: conformance boom',
    )
    // The alert's link opens the issue page.
    await page.goto(regression?.issue?.url ?? '')
    expect(page.url()).toBe(`${server.url}/issues/${state.exceptionIssue}`)
    expect(await page.locator('.badge.unresolved').count()).toBe(1)
    await go(`/projects/${state.projectId}/settings`)
    await expect
      .poll(() => page.locator('td:has-text("regression")').count(), { timeout: 10_000 })
      .toBeGreaterThan(0)
    await screenshot(page, 'settings')
  })

  it('shows HTML and script from an event as text and runs none of it', async () => {
    const evil = '<script>alert("xss-message")</script>'
    const eventId = 'c'.repeat(32)
    await sendRaw(state.dsn, 'event', {
      event_id: eventId,
      level: 'error',
      platform: 'javascript',
      message: evil,
      tags: { '<b>tag</b>': '<img src=x onerror=alert("xss-tag")>' },
      exception: {
        values: [
          {
            type: 'Error',
            value: '<svg onload=alert("xss-value")>',
            stacktrace: {
              frames: [
                {
                  filename: '<script>alert("xss-file")</script>.js',
                  function: '<img src=x onerror=alert("xss-fn")>',
                  lineno: 3,
                  in_app: true,
                  context_line: '<script>alert("xss-context")</script>',
                },
              ],
            },
          },
        ],
      },
    })
    const event = await waitFor(() => api.event(state.projectId, eventId), { timeout: 5_000 })
    state.xssIssue = Number(event.issue_id)
    await go(`/issues/${state.xssIssue}`)
    await page.locator('#new-events').waitFor({ state: 'attached' })
    await expect.poll(() => page.getByText(evil, { exact: true }).first().isVisible()).toBe(true)
    expect(await page.getByText('<img src=x onerror=alert("xss-tag")>').isVisible()).toBe(true)
    expect(await page.getByText('<script>alert("xss-context")</script>').first().isVisible()).toBe(
      true,
    )
    expect(await page.locator('img').count()).toBe(0)
    expect(await page.locator('svg[onload]').count()).toBe(0)
    expect(await page.locator('script').count()).toBe(1)
    await screenshot(page, 'issue-html-as-text')
    await go(`/projects/${state.projectId}/issues`)
    expect(await page.getByText('Error: <svg onload=alert("xss-value")>').isVisible()).toBe(true)
    expect(
      await page.getByText('<img src=x onerror=alert("xss-fn")>', { exact: false }).isVisible(),
    ).toBe(true)
    expect(await page.locator('img, svg[onload]').count()).toBe(0)
    expect(dialogs).toEqual([])
  })

  it('mints a component DSN, sends with it and filters by it', async () => {
    await go(`/projects/${state.projectId}/settings`)
    await page.fill('input[name=label]', 'worker')
    await Promise.all([
      page.waitForURL(/done=key/),
      page.click('button:has-text("Create component DSN")'),
    ])
    const row = page.locator('tr', { hasText: 'component: worker' })
    const workerDsn = await row.locator('input[aria-label=DSN]').inputValue()
    expect(workerDsn).not.toBe(state.dsn)
    await runDriver(node, { scenario: 'grouping', dsn: workerDsn })
    await go(`/projects/${state.projectId}/issues`)
    await expect.poll(() => issueRows().count()).toBe(3)
    await page.selectOption('select[name=component]', 'worker')
    await Promise.all([
      page.waitForURL(/component=worker/),
      page.click('button:has-text("Filter")'),
    ])
    await expect.poll(() => issueRows().count()).toBe(2)
    const text = (await page.textContent('#issue-list')) ?? ''
    expect(text).toContain('Error: conformance boom')
    expect(text).not.toContain('xss-message')
    await screenshot(page, 'issues-component-filter')
  })

  it('refuses a form posted without the CSRF token with 403', async () => {
    await go(`/projects/${state.projectId}/issues`)
    const status = await page.evaluate(
      "fetch('/projects', { method: 'POST', body: new URLSearchParams({ name: 'csrf-probe' }) }).then((r) => r.status)",
    )
    expect(status).toBe(403)
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/projects') && r.request().method() === 'POST'),
      page.evaluate(`(() => {
        const form = document.createElement('form')
        form.method = 'post'
        form.action = '/projects'
        const input = document.createElement('input')
        input.name = 'name'
        input.value = 'csrf-probe'
        form.appendChild(input)
        document.body.appendChild(form)
        form.submit()
      })()`),
    ])
    expect(response.status()).toBe(403)
    await page.waitForLoadState()
    expect(await page.textContent('main')).toContain('security token')
    await screenshot(page, 'csrf-refused')
    const names = (await fetch(`${server.url}/api/0/projects/`, {
      headers: { authorization: `Bearer ${server.adminToken}` },
    }).then((r) => r.json())) as { name: string }[]
    expect(names.map((p) => p.name)).not.toContain('csrf-probe')
  })

  it('renders releases, crons and outcomes from the SDK data', async () => {
    await go(`/projects/${state.projectId}/releases`)
    await expect.poll(() => page.textContent('main')).toContain('conformance@1.0.0')
    expect(await page.locator('svg.chart').count()).toBe(2)
    await screenshot(page, 'releases')

    const config = {
      schedule: { type: 'crontab', value: '*/5 * * * *' },
      timezone: 'Europe/Berlin',
      checkin_margin: 2,
      max_runtime: 10,
    }
    for (const status of ['ok', 'error', 'ok']) {
      await sendRaw(state.dsn, 'check_in', {
        check_in_id: crypto.randomUUID().replaceAll('-', ''),
        monitor_slug: 'nightly-report',
        status,
        duration: 1.5,
        environment: 'production',
        monitor_config: config,
      })
    }
    await go(`/projects/${state.projectId}/crons`)
    const row = page.locator('tr', { hasText: 'nightly-report' })
    expect(await row.textContent()).toContain('*/5 * * * *')
    expect(await row.textContent()).toContain('Europe/Berlin')
    expect(await row.locator('.timeline span').count()).toBe(3)
    await screenshot(page, 'crons')
    await Promise.all([
      page.waitForURL(/crons\/nightly-report$/),
      page.click('a:has-text("nightly-report")'),
    ])
    expect(await page.locator('tbody .badge.error').count()).toBe(1)
    await screenshot(page, 'cron-monitor')

    await go(`/projects/${state.projectId}/outcomes`)
    const table = (await page.textContent('table')) ?? ''
    expect(table).toContain('accepted')
    await screenshot(page, 'outcomes')
  })

  it('creates an API token that works on the API, and signs out', async () => {
    await go('/account/tokens')
    await page.fill('input[name=name]', 'deploy script')
    await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/account/tokens') && r.status() === 201),
      page.click('button:has-text("Create token")'),
    ])
    const token = await page.inputValue('#new-token')
    const res = await fetch(`${server.url}/api/0/projects/`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(res.status).toBe(200)
    await screenshot(page, 'api-tokens')
    await Promise.all([page.waitForURL(/\/login$/), page.click('button:has-text("Sign out")')])
    await page.goto(`${server.url}/projects/${state.projectId}/issues`)
    expect(page.url()).toContain('/login?next=')
    expect(dialogs).toEqual([])
  })
})
