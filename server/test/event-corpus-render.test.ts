import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, it } from 'vitest'
import { EVENT_SHAPES } from './support/event-shapes.ts'
import { ADMIN, eid, sentryAuth } from './support/helpers.ts'
import { readBelow500, renderingAppPerFile } from './support/ui-helpers.ts'

// Property over a corpus: every event, sent as a legacy `/store/` body and as an envelope item,
// is answered 200 or 4xx with `{"detail"}`, and every page and API read of what was stored
// (event, issue, issue events, issue list searches and filters by its own values, release
// health of its release, the UI pages) answers below 500. The corpus is the hand-made shapes of
// event-shapes.ts, plus every `*.json` object in `EVENT_CORPUS_DIR` when set: run it over
// public sample events (e.g. getsentry/sentry `src/sentry/data/samples/`) that stay out of
// the repository.

function corpus(): [string, Record<string, unknown>][] {
  const out = Object.entries(EVENT_SHAPES)
  const dir = process.env['EVENT_CORPUS_DIR']
  if (dir === undefined || dir === '') return out
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    let v: unknown
    try {
      v = JSON.parse(readFileSync(join(dir, name), 'utf8'))
    } catch {
      // Some upstream samples are invalid JSON on purpose; the body test covers raw bytes.
      continue
    }
    if (v !== null && typeof v === 'object' && !Array.isArray(v))
      out.push([name, v as Record<string, unknown>])
  }
  return out
}

const r = renderingAppPerFile()

const read = (url: string, asUi: boolean, what: string) => readBelow500(r, url, asUi, what)

/** A value to filter lists by: a string of at most `max` chars, else none. */
function text(v: unknown, max: number): string | undefined {
  return typeof v === 'string' && v.length <= max ? v : undefined
}

/** URI-encodes a string; a lone surrogate (which a URL cannot carry) becomes U+FFFD. */
const uriSafe = (v: string) =>
  encodeURIComponent(
    v.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd'),
  )

async function send(what: string, url: string, body: string): Promise<boolean> {
  const res = await r.app.inject({
    method: 'POST',
    url,
    headers: { 'x-sentry-auth': sentryAuth(r.project.key), 'content-type': 'application/json' },
    payload: body,
  })
  expect(res.statusCode, `${what}: ${res.body.slice(0, 300)}`).toBeLessThan(500)
  if (res.statusCode !== 200)
    expect(res.json<{ detail?: unknown }>().detail, `${what}: ${res.body}`).toBeDefined()
  return res.statusCode === 200
}

async function readAll(what: string, id: string, event: Record<string, unknown>): Promise<void> {
  const ev = await r.app.inject({
    url: `/api/0/projects/${r.project.id}/events/${id}/`,
    headers: ADMIN,
  })
  if (ev.statusCode === 404) return // transactions and dropped items are not stored as errors
  expect(ev.statusCode, `${what}: event read: ${ev.body.slice(0, 300)}`).toBe(200)
  const issueId = ev.json<{ issue_id: number }>().issue_id
  await read(`/api/0/issues/${issueId}/`, false, what)
  await read(`/api/0/issues/${issueId}/events/`, false, what)
  await read(`/issues/${issueId}`, true, what)
  await read(`/projects/${r.project.id}/issues/${issueId}`, true, what)
  await read(`/projects/${r.project.id}/events/${id}`, true, what)
  const filters: Record<string, string | undefined> = {
    query: text(event['message'], 200) ?? text(event['transaction'], 200),
    environment: text(event['environment'], 256),
    release: text(event['release'], 256),
  }
  for (const [k, v] of Object.entries(filters)) {
    if (v === undefined) continue
    const q = `${k}=${uriSafe(v)}`
    await read(`/api/0/projects/${r.project.id}/issues/?${q}`, false, what)
    await read(`/projects/${r.project.id}/issues?${q}`, true, what)
    await read(`/projects/${r.project.id}/issues/fragment?${q}`, true, what)
  }
  const release = filters['release']
  if (release !== undefined)
    await read(`/api/0/projects/${r.project.id}/releases/${uriSafe(release)}/health/`, false, what)
}

it('stores every corpus event without a 5xx and renders every read of it', async () => {
  const events = corpus()
  let stored = 0
  let n = 0
  for (const [name, event] of events) {
    const isTransaction = event['type'] === 'transaction'
    const storeId = eid(++n)
    const asStore = JSON.stringify({ ...event, event_id: storeId })
    if (await send(`${name} via /store/`, `/api/${r.project.id}/store/`, asStore)) {
      stored++
      await readAll(`${name} via /store/`, storeId, event)
    }
    const envId = eid(++n)
    const type = isTransaction ? 'transaction' : 'event'
    const body = `{"event_id":"${envId}"}\n{"type":"${type}"}\n${JSON.stringify({ ...event, event_id: envId })}`
    if (await send(`${name} via envelope`, `/api/${r.project.id}/envelope/`, body)) {
      stored++
      await readAll(`${name} via envelope`, envId, event)
    }
  }
  // A property over nothing proves nothing: most of the corpus must be accepted.
  expect(stored).toBeGreaterThan(events.length)
  for (const url of [
    `/api/0/projects/${r.project.id}/issues/`,
    `/api/0/projects/${r.project.id}/outcomes/`,
    `/api/0/projects/${r.project.id}/outcomes/series/`,
    `/api/0/projects/${r.project.id}/releases/`,
  ])
    await read(url, false, 'lists')
  for (const url of [
    `/projects/${r.project.id}/issues`,
    `/projects/${r.project.id}/issues?tab=resolved`,
    `/projects/${r.project.id}/issues/fragment`,
    `/projects/${r.project.id}/releases`,
    `/projects/${r.project.id}/outcomes`,
    `/projects/${r.project.id}`,
    '/projects',
    '/',
  ])
    await read(url, true, 'pages')
}, 240_000)
