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

describe('the issue page of a native crash report', () => {
  it('keeps the registers, names frames by the older images, lists the images', async () => {
    const issue = await store({
      platform: 'cocoa',
      exception: {
        values: [
          {
            type: 'EXC_BAD_ACCESS',
            value: 'Attempted to dereference null pointer.',
            thread_id: 0,
            stacktrace: {
              frames: [
                { function: 'main', instruction_addr: '0x0000000100008010' },
                // No package: named by the image its address falls in.
                { function: '-[Client crash]', instruction_addr: '0x00000001000a4100' },
              ],
              registers: { pc: '0x00000001000a4100', sp: '0x000000016fd79810', lr: 4096 },
            },
          },
        ],
      },
      debug_meta: {
        images: [
          // The older `apple` image shape: the file is `name`, the ID `uuid`.
          {
            type: 'apple',
            name: '/var/containers/Bundle/Application/X/Shop.app/Shop',
            image_addr: '0x0000000100000000',
            image_size: 1073741824,
            uuid: '6B77FFB6-5ABA-3B5F-9171-434F9660F738',
          },
          {
            type: 'apple',
            name: '/private/var/containers/Bundle/Application/X/Shop.app/Frameworks/Sentry.framework/Sentry',
            image_addr: '0x00000001000a4000',
            image_size: 163840,
            uuid: '141A9203-B953-3CD6-B9FD-7BA60191A36D',
          },
        ],
      },
    })
    expect(issue.title).toBe('EXC_BAD_ACCESS: Attempted to dereference null pointer.')
    const body = await page(issue.id)
    // The oversized first image covers both addresses; the one loaded last below each wins.
    expect(body).toContain('<span>Shop</span> <span class="muted mono">0x0000000100008010</span>')
    expect(body).toContain('<span>Sentry</span> <span class="muted mono">0x00000001000a4100</span>')
    expect(body).toContain('Registers (3)')
    expect(body).toContain('<tr><th>sp</th><td class="mono">0x000000016fd79810</td></tr>')
    expect(body).toContain('<tr><th>lr</th><td class="mono">0x1000</td></tr>')
    expect(body).toContain('<h2>Images loaded</h2>')
    expect(body).toContain('141A9203-B953-3CD6-B9FD-7BA60191A36D')
  })

  it("shows the crashed thread's frames under an exception that has none", async () => {
    const issue = await store({
      platform: 'ruby',
      exception: { values: [{ type: 'NameError', value: 'undefined local variable foo' }] },
      threads: {
        values: [
          { id: 3, name: 'puma 001', stacktrace: { frames: [{ function: 'idle' }] } },
          {
            id: 4,
            name: 'puma 002',
            crashed: true,
            stacktrace: {
              frames: [{ filename: 'app/views/x.html.erb', lineno: 1, in_app: true }],
            },
          },
        ],
      },
    })
    const body = await page(issue.id)
    const exception = body.slice(
      body.indexOf('<h2>Exception</h2>'),
      body.indexOf('<h2>Threads</h2>'),
    )
    expect(exception).toContain("No stack trace of its own: the crashed thread's.")
    expect(exception).toContain('app/views/x.html.erb')
    expect(exception).not.toContain('idle')
  })
})
