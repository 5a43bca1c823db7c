import { describe, expect, it } from 'vitest'
import { ADMIN, eid, sentryAuth } from './support/helpers.ts'
import { renderingAppPerFile } from './support/ui-helpers.ts'

// What an issue shows for event shapes that the public sample corpora (getsentry/sentry's
// `src/sentry/data/samples/`, Relay's payload fixtures) carry and that stock SDKs rarely send:
// its culprit as Sentry derives it, and the parts of the event the issue page must not drop.
// Every event here is hand-made; docs/old-client-events.md says how the corpora were run.

const r = renderingAppPerFile()
let n = 0

/** Stores `event` through `/store/` and returns its issue as the API shows it. */
async function store(event: Record<string, unknown>) {
  const id = eid(0x1000 + ++n)
  const res = await r.app.inject({
    method: 'POST',
    url: `/api/${r.project.id}/store/`,
    headers: { 'x-sentry-auth': sentryAuth(r.project.key), 'content-type': 'application/json' },
    payload: JSON.stringify({ ...event, event_id: id }),
  })
  expect(res.statusCode, res.body).toBe(200)
  const ev = await r.app.inject({
    url: `/api/0/projects/${r.project.id}/events/${id}/`,
    headers: ADMIN,
  })
  expect(ev.statusCode, ev.body).toBe(200)
  const issueId = ev.json<{ issue_id: number }>().issue_id
  const issue = await r.app.inject({ url: `/api/0/issues/${issueId}/`, headers: ADMIN })
  return issue.json<{ id: number; title: string; culprit: string }>()
}

async function page(issueId: number): Promise<string> {
  const res = await r.ui.get(`/issues/${issueId}`)
  expect(res.statusCode).toBe(200)
  return res.body
}

describe('the culprit of an old client event, as Sentry derives it', () => {
  it('is the culprit the client sent', async () => {
    const issue = await store({
      culprit: 'views.js in updateMember',
      exception: {
        values: [
          {
            type: 'TypeError',
            stacktrace: { frames: [{ filename: 'views.js', function: 'poll', in_app: true }] },
          },
        ],
      },
    })
    expect(issue.culprit).toBe('views.js in updateMember')
  })

  it('comes from the cause when the thrown wrapper has no frames', async () => {
    const issue = await store({
      exception: {
        values: [
          {
            type: 'NameError',
            stacktrace: { frames: [{ filename: 'app/views/show.erb', lineno: 1, in_app: true }] },
          },
          { type: 'Template::Error', value: 'undefined name' },
        ],
      },
    })
    expect(issue.title).toBe('Template::Error: undefined name')
    expect(issue.culprit).toBe('app/views/show.erb in ?')
  })

  it('writes a node frame as function(module)', async () => {
    const issue = await store({
      platform: 'node',
      message: 'captured here',
      stacktrace: {
        frames: [
          {
            filename: '/srv/main.js',
            module: 'main',
            function: 'Object.<anonymous>',
            in_app: true,
          },
        ],
      },
    })
    expect(issue.culprit).toBe('Object.<anonymous>(main)')
  })

  it("is the request's URL for a report without frames, whose page shows the report", async () => {
    const issue = await store({
      logentry: { formatted: 'pinning failed for example.test' },
      hpkp: { hostname: 'example.test', port: 443, known_pins: ['pin-sha256="AAAA"'] },
      request: { url: 'https://example.test/welcome/' },
    })
    expect(issue.culprit).toBe('https://example.test/welcome/')
    const body = await page(issue.id)
    expect(body).toContain('<h2>HPKP report</h2>')
    expect(body).toContain('known_pins')
    expect(body).toContain('pin-sha256=')
  })
})

describe('the issue page of an event with threads', () => {
  it('lists every thread beside the exception', async () => {
    const issue = await store({
      platform: 'java',
      exception: {
        values: [
          {
            type: 'IllegalStateException',
            value: 'closed',
            stacktrace: { frames: [{ module: 'app.Main', function: 'run', in_app: true }] },
          },
        ],
      },
      threads: {
        values: [
          {
            id: 1,
            name: 'main',
            crashed: true,
            current: true,
            stacktrace: { frames: [{ module: 'app.Main', function: 'run' }] },
          },
          {
            id: 7,
            name: 'OkHttp ConnectionPool',
            stacktrace: { frames: [{ module: 'java.lang.Object', function: 'wait' }] },
          },
          { id: 9, name: 'Signal Catcher' },
        ],
      },
    })
    const body = await page(issue.id)
    expect(body).toContain('<h2>Threads</h2>')
    expect(body).toContain('OkHttp ConnectionPool')
    expect(body).toContain('<span class="fn">wait</span>')
    expect(body).toContain('Signal Catcher')
  })
})
