import { expect, it } from 'vitest'
import { ADMIN, envelopeOf, postEnvelope } from './support/helpers.ts'
import { readBelow500, renderingAppPerFile } from './support/ui-helpers.ts'

// Every envelope item type a client may send, with payloads of the wrong type and shape: the
// server answers 200 or 4xx with `{"detail"}`, and every list and page that shows what those
// items leave behind (crons, releases and their health, outcomes) still renders.

const CHECK_IN_ID = '0123456789abcdef0123456789abcdef'

const ANY_WRONG: unknown[] = ['null', '[]', '"text"', '5', '{}', '1e308', '{"a":[null]}']

const SHAPES: Record<string, unknown[]> = {
  session: [
    {
      sid: '0123456789abcdef0123456789abcdef',
      did: 'd\u0000\ud800',
      status: 'exited',
      errors: 1,
      started: new Date().toISOString(),
      attrs: { release: 'r\u0000\ud800', environment: 'e\u0000', user_agent: '\u0000' },
    },
    { sid: 5, status: ['ok'], errors: '3', started: 1e308, attrs: { release: 5 } },
    { sid: 'x', did: { id: 1 }, status: 'exited', started: 'yesterday', attrs: 'r' },
    { status: 'crashed', started: -1, timestamp: 1e308, attrs: { release: 'r\ud800\u0000' } },
    {
      status: 'ok',
      init: 'yes',
      errors: -5,
      duration: 'x',
      attrs: { release: 'r', environment: 5 },
    },
  ],
  sessions: [
    {
      aggregates: [{ started: new Date().toISOString(), exited: 1, errored: 1 }],
      attrs: { release: 'agg\u0000\ud800', environment: 'e\u0000\u202e' },
    },
    { aggregates: {}, attrs: { release: ['x'] } },
    { aggregates: [{ started: 'x', exited: -1, errored: 1e308 }, null], attrs: { release: 'r' } },
    { aggregates: [{ started: '2020-01-01T00:00:00Z', exited: '5', crashed: 1.5 }], attrs: {} },
    { aggregates: 'none', attrs: { release: 'r', environment: '\u202e' } },
  ],
  check_in: [
    { monitor_slug: {}, status: 5, duration: 'x', monitor_config: { schedule: 'x' } },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'odd \ud800\u0000 slug',
      status: 'ok',
      monitor_config: { schedule: { type: 'crontab', value: 'not a crontab' } },
    },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'interval',
      status: 'in_progress',
      monitor_config: {
        schedule: { type: 'interval', value: -1, unit: 'eon' },
        checkin_margin: 1e308,
        max_runtime: -0,
        timezone: 'Mars/Olympus',
      },
    },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'crontab',
      status: 'error',
      duration: 1e308,
      release: 'r',
      environment: ['e'],
      monitor_config: { schedule: { type: 'crontab', value: '0 0 31 2 *' }, timezone: 5 },
    },
    { monitor_slug: 'x'.repeat(10_000), status: 'ok', check_in_id: 'not-a-uuid' },
    { check_in_id: CHECK_IN_ID, monitor_slug: 'plain', status: 'ok', duration: -0, release: 'r' },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'longest-interval',
      status: 'error',
      release: '\u0000\ud800',
      environment: 'e\u0000',
      contexts: { trace: { trace_id: '\u0000' } },
    },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'ok-\u202e\u0000',
      status: 'ok',
      environment: 'e\ud800',
      monitor_config: { schedule: { type: 'crontab', value: '*/5 * * * *' }, timezone: 'Mars/X' },
    },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'valid-\u202e\u0000',
      status: 'error',
      duration: 1e308,
      environment: 'e\ud800',
      release: 'r\u0000',
      monitor_config: {
        schedule: { type: 'crontab', value: '0 0 29 2 *' },
        checkin_margin: 1e6,
        max_runtime: 1e6,
        failure_issue_threshold: 1e6,
      },
    },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'interval-ok',
      status: 'in_progress',
      monitor_config: { schedule: { type: 'interval', value: 1e9, unit: 'year' } },
    },
    {
      check_in_id: CHECK_IN_ID,
      monitor_slug: 'longest-interval',
      status: 'in_progress',
      monitor_config: { schedule: { type: 'interval', value: 1000, unit: 'year' } },
    },
  ],
  client_report: [
    { discarded_events: {}, timestamp: 'x' },
    { discarded_events: [{ reason: 5, category: null, quantity: '1e308' }, null] },
    { discarded_events: [{ reason: 'x'.repeat(10_000), category: 'error', quantity: 1e308 }] },
    { discarded_events: [{ reason: 'r', category: 'error', quantity: -5 }] },
    { discarded_events: [{ reason: '\u0000\ud800', category: 'error\u0000', quantity: 2 }] },
    { discarded_events: [{ reason: 'r', category: '\ud800', quantity: 1.5 }] },
    { rate_limited_events: [{ reason: 'r', category: 'error', quantity: 1 }], timestamp: 1e308 },
  ],
  user_report: [{ event_id: 5, name: ['n'], email: {}, comments: null }],
  feedback: [{ contexts: { feedback: { message: 5, contact_email: [] } } }, { contexts: 'x' }],
  attachment: ['\u0000binary'],
  transaction: [{ type: 'transaction', spans: 'x', start_timestamp: 'bad' }],
  span: [{ span_id: 5 }],
  log: [{ items: 'x' }],
  profile: [{ samples: null }],
  replay_event: [{ segment_id: 'x' }],
  statsd: ['not statsd'],
  otel_log: [{ body: null }],
  '': [{}],
  ['x'.repeat(300)]: [{}],
}

const r = renderingAppPerFile()

const read = (url: string, asUi: boolean) => readBelow500(r, url, asUi)

it('answers every item of a wrong shape with 200 or a 4xx detail, and every page renders', async () => {
  let accepted = 0
  for (const [type, shapes] of Object.entries(SHAPES)) {
    for (const payload of [...shapes, ...ANY_WRONG]) {
      const what = `${type}: ${JSON.stringify(payload).slice(0, 120)}`
      const res = await postEnvelope(
        r.app,
        r.project.id,
        r.project.key,
        envelopeOf([[type, payload]]),
      )
      expect(res.statusCode, `${what}: ${res.body}`).toBeLessThan(500)
      if (res.statusCode === 200) accepted++
      else expect(res.json<{ detail?: unknown }>().detail, `${what}: ${res.body}`).toBeDefined()
    }
  }
  expect(accepted).toBeGreaterThan(0)
  const monitors = await r.app.inject({
    url: `/api/0/projects/${r.project.id}/monitors/`,
    headers: ADMIN,
  })
  expect(monitors.statusCode).toBe(200)
  const slugs = monitors.json<{ slug: string }[]>().map((m) => m.slug)
  expect(slugs.length).toBeGreaterThan(0)
  for (const slug of slugs) {
    const s = encodeURIComponent(slug)
    await read(`/api/0/projects/${r.project.id}/monitors/${s}/`, false)
    await read(`/api/0/projects/${r.project.id}/monitors/${s}/checkins/`, false)
    await read(`/projects/${r.project.id}/crons/${s}`, true)
  }
  const releases = await r.app.inject({
    url: `/api/0/projects/${r.project.id}/releases/`,
    headers: ADMIN,
  })
  expect(releases.statusCode).toBe(200)
  for (const rel of releases.json<{ version: string }[]>())
    await read(
      `/api/0/projects/${r.project.id}/releases/${encodeURIComponent(rel.version)}/health/`,
      false,
    )
  for (const url of [
    `/api/0/projects/${r.project.id}/outcomes/`,
    `/api/0/projects/${r.project.id}/outcomes/series/`,
    `/api/0/projects/${r.project.id}/issues/`,
  ])
    await read(url, false)
  for (const url of [
    `/projects/${r.project.id}/crons`,
    `/projects/${r.project.id}/releases`,
    `/projects/${r.project.id}/outcomes`,
    `/projects/${r.project.id}/issues`,
    `/projects/${r.project.id}`,
  ])
    await read(url, true)
}, 120_000)
