/**
 * `--scale`: a database with 1 million events in 10,000 issues, built once through the store's
 * own bulk write path (so it stays right whatever the store does with payloads and indexes) and
 * cached under `.cache/` keyed by the schema, the payload and this file's fill version; each run
 * loads a copy, so every run starts at the same size. Also times the two pages that grow with it.
 */
import { spawnSync } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { digestEvent } from '../../server/src/ingest/items/event.ts'
import { encodePayload } from '../../server/src/store/payload-codec.ts'
import { openSqliteStore } from '../../server/src/store/sqlite/index.ts'
import type { EventToWrite, WriteUnit } from '../../server/src/store/types.ts'
import type { StartOptions } from './instance.ts'
import { median } from './report.ts'
import { startIngest, stopChild } from './server.ts'
import { ENVELOPE } from './wrk.ts'

const EVENTS = Number(process.env['BENCH_SCALE_EVENTS'] ?? 1_000_000)
const ISSUES = Number(process.env['BENCH_SCALE_ISSUES'] ?? 10_000)
// 2: payloads digested as ingest stores them (1 stored the client's JSON, which compressed to
// 2.7× the bytes of the real stored form).
// 3 (4: events.search without the frames): events carry varied tags (browser, user, url, shard) and one issue has a tenth of them,
// for the search timings (search-timing.ts). 6: ISSUES issues (5 filled 90 % of them: an issue
// number that is a multiple of 10 only ever received the big issue's events). 7: each issue's
// events patched from one digest per shape (same rows but the payload, in a fraction of the time).
const FILL_VERSION = 7
const MIGRATIONS = 'server/src/store/sqlite/migrations'

const BROWSERS = ['Chrome', 'Chrome', 'Chrome', 'Firefox', 'Safari', 'Edge']
const PAGES = ['checkout', 'cart', 'search', 'account']

/** Varied search fields of the i-th pre-filled event: browsers, users, urls and a shard tag. */
function searchFields(i: number): Record<string, unknown> {
  const browser = BROWSERS[i % BROWSERS.length] as string
  return {
    contexts: { browser: { name: browser, version: String(100 + (i % 20)) } },
    request: { url: `https://shop.example/${PAGES[i % PAGES.length]}/${i % 100}`, method: 'GET' },
    // One event in seven says nothing of its user.
    ...(i % 7 === 0 ? {} : { user: { id: String(i % 50_000) } }),
    tags: { shard: String(i % 16) },
  }
}

/** Whether the i-th pre-filled event says who its user is. */
const hasUser = (i: number) => i % 7 !== 0

/** Every how many pre-filled events the patched row is checked against a real digest. */
const CHECK_EVERY = 1009

/**
 * The tags of the i-th pre-filled event: those of its issue's digested event of the same shape
 * with the values searchFields varies put in their place (the digest's order kept).
 */
function patchTags(template: readonly [string, string][], i: number): [string, string][] {
  const f = searchFields(i) as {
    contexts: { browser: { name: string; version: string } }
    request: { url: string }
    user?: { id: string }
    tags: { shard: string }
  }
  const b = f.contexts.browser
  const varied: Record<string, string | undefined> = {
    browser: `${b.name} ${b.version}`,
    'browser.name': b.name,
    url: f.request.url,
    user: f.user === undefined ? undefined : `id:${f.user.id}`,
    'user.id': f.user?.id,
    shard: f.tags.shard,
  }
  return template.map(([k, v]) => [k, k in varied ? (varied[k] as string) : v])
}

/** A pre-filled SQLite data directory and the project in it. */
export interface Prefilled {
  dataDir: string
  projectId: string
  publicKey: string
}

/** The cache key: what makes a cached database reusable. */
function cacheKey(): string {
  const h = createHash('sha256')
  for (const f of readdirSync(MIGRATIONS).sort())
    h.update(f).update(readFileSync(join(MIGRATIONS, f)))
  h.update(readFileSync(ENVELOPE)).update(`${FILL_VERSION}:${EVENTS}:${ISSUES}`)
  return h.digest('hex').slice(0, 16)
}

/** The cached pre-filled database, built first if missing. */
export async function prefilledDatabase(o: StartOptions): Promise<Prefilled> {
  const dir = join('.cache', `bench-scale-${cacheKey()}`)
  const metaFile = join(dir, 'meta.json')
  if (existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as Prefilled
    console.log(`scale: reusing ${dir} (${EVENTS} events in ${ISSUES} issues)`)
    return meta
  }
  rmSync(dir, { recursive: true, force: true })
  const dataDir = join(dir, 'data')
  mkdirSync(dataDir, { recursive: true })
  const started = Date.now()
  // The server creates the schema, the project and its key; one real event goes through ingest.
  const token = randomBytes(16).toString('hex')
  // Built on SQLite whatever --db says; PostgreSQL runs get a copy of it (instance.ts).
  const server = await startIngest(o.dist, { dataDir }, token, o.env, o.nodeFlags)
  let projectId: string
  let publicKey: string
  try {
    const res = await fetch(`${server.url}/api/0/projects/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"name":"bench-scale"}',
    })
    const created = (await res.json()) as { id: number; dsn: string }
    projectId = String(created.id)
    publicKey = new URL(created.dsn).username
    const sent = await fetch(
      `${server.url}/api/${projectId}/envelope/?sentry_key=${publicKey}&sentry_version=7`,
      { method: 'POST', body: readFileSync(ENVELOPE) },
    )
    if (sent.status !== 200) throw new Error(`scale: the seed event got ${sent.status}`)
  } finally {
    await stopChild(server)
  }
  const store = await openSqliteStore(join(dataDir, 'ingest.sqlite'), { writerThread: false })
  // Only how the fill's own connection writes, not what: a throw-away database needs no fsync
  // per commit, and a page cache that holds the growing database (1 GiB) keeps the random
  // inserts of issue_tags and the events' issue index off the disk.
  store.db.pragma('synchronous = OFF')
  store.db.pragma('cache_size = -1048576')
  try {
    const key = await store.findKey(publicKey)
    if (key === undefined) throw new Error('scale: the project key is missing')
    const version =
      store.db.prepare<[], { v: string }>('SELECT grouping_version AS v FROM issues LIMIT 1').get()
        ?.v ?? '1'
    const lines = readFileSync(ENVELOPE, 'utf8').split('\n')
    const event = JSON.parse(lines[2] ?? '{}') as Record<string, unknown>
    // The captured exception (with its stack trace) under a per-issue message: real-sized rows.
    const firstException =
      ((event['exception'] as { values?: object[] } | undefined)?.values ?? [])[0] ?? {}
    const now = Date.now()
    const UNIT = 100
    // 20,000 events per group commit: the per-commit upserts (issue_tags, issue_hours,
    // facets) then meet more of their rows aggregated.
    const PER_WRITE = 200
    const hashes = new Map<number, string>()
    const hashOf = (issue: number): string => {
      let h = hashes.get(issue)
      if (h === undefined) {
        h = createHash('md5').update(`bench-scale-${issue}`).digest('hex')
        hashes.set(issue, h)
      }
      return h
    }
    // Each issue's events are digested once per shape (with a user, without): another event
    // of the issue is that row with what searchFields varies patched in (tags, ids, times) and
    // the shape's stored payload (the same bytes in each row: the size on disk of a real
    // event's). Every CHECK_EVERY-th event is also digested for real and must match.
    const templates = new Map<string, EventToWrite>()
    const digestOf = (i: number, issue: number, eventId: string, timestamp: number) => {
      const raw = {
        ...event,
        event_id: eventId,
        timestamp: timestamp / 1000,
        exception: { values: [{ ...firstException, value: `bench failure ${issue}` }] },
        ...searchFields(i),
      }
      const scope = {
        project: { id: Number(projectId) },
        key: { id: key.id, component: null },
        received: timestamp,
      }
      const { row } = digestEvent(raw, scope, eventId)
      return { ...row, hash: hashOf(issue), groupingVersion: version }
    }
    for (let i = 0; i < EVENTS; ) {
      const units: WriteUnit[] = []
      for (let u = 0; u < PER_WRITE && i < EVENTS; u++) {
        const events: EventToWrite[] = []
        for (let e = 0; e < UNIT && i < EVENTS; e++, i++) {
          // Issue 0 gets a tenth of the events: the tag distribution of a big issue is timed.
          const issue = i % 10 === 0 ? 0 : 1 + (i % (ISSUES - 1))
          const eventId = `${(i + 1).toString(16).padStart(12, '0')}${'b'.repeat(20)}`
          // Spread over the last ~12 days, oldest first, as a real history would arrive.
          const timestamp = now - (EVENTS - i) * 1000
          const shape = `${issue}:${hasUser(i)}`
          let template = templates.get(shape)
          if (template === undefined) {
            // Digested as ingest digests it, so the payload is the stored form the server
            // writes (normalised, then compressed by the store); only the grouping hash is the
            // bench's, to spread the events over ISSUES issues.
            const row = digestOf(i, issue, eventId, timestamp)
            template = { ...row, payload: encodePayload(row.payload as string) }
            templates.set(shape, template)
          }
          const tags = patchTags(template.tags ?? [], i)
          const written = { ...template, eventId, timestamp, received: timestamp, tags }
          if (i % CHECK_EVERY === 0) {
            const real = digestOf(i, issue, eventId, timestamp)
            const { payload: _a, ...want } = real
            const { payload: _b, ...got } = written
            if (JSON.stringify(want) !== JSON.stringify(got))
              throw new Error(
                `scale: event ${i} patched differs from its digest:\n${JSON.stringify(got)}\n${JSON.stringify(want)}`,
              )
          }
          events.push(written)
        }
        units.push({ events, outcomes: [] })
      }
      await store.write(units)
      if (i % 100_000 === 0) {
        console.log(`scale: ${i} events written (${Math.round((Date.now() - started) / 1000)} s)`)
      }
    }
  } finally {
    await store.close()
  }
  const meta: Prefilled = { dataDir, projectId, publicKey }
  writeFileSync(metaFile, `${JSON.stringify(meta)}\n`)
  console.log(`scale: pre-filled ${dir} in ${Math.round((Date.now() - started) / 1000)} s`)
  return meta
}

/** Runs `fn` on a fresh copy of the pre-filled database (reflinked where the disk can). */
export async function withPrefilledCopy<T>(
  p: Prefilled,
  fn: (copy: Prefilled) => Promise<T>,
): Promise<T> {
  const tmp = mkdtempSync(join(process.env['BENCH_TMPDIR'] ?? tmpdir(), 'ingest-bench-scale-'))
  try {
    const copy = join(tmp, 'data')
    const cp = spawnSync('cp', ['-r', '--reflink=auto', p.dataDir, copy])
    if (cp.status !== 0) throw new Error(`copying the pre-filled database failed: ${cp.stderr}`)
    return await fn({ ...p, dataDir: copy })
  } finally {
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** Render times of the issue list and one issue page, ms (median of a few on an idle server). */
export interface PageTimes {
  issueListMs: number
  issueMs: number
  samples: number
}

/** Times the two pages that grow with the database, through the UI's bearer-token access. */
export async function timePages(url: string, token: string, projectId: string): Promise<PageTimes> {
  const headers = { authorization: `Bearer ${token}` }
  const list = await fetch(`${url}/api/0/projects/${projectId}/issues/?limit=1`, { headers })
  const first = ((await list.json()) as { id: number | string }[])[0]
  if (first === undefined) throw new Error('timing pages: the project has no issue')
  const time = (path: string) => timePage(url, token, path)
  const SAMPLES = 3
  const lists: number[] = []
  const issues: number[] = []
  for (let i = 0; i < SAMPLES; i++) {
    lists.push(await time(`/projects/${projectId}/issues`))
    issues.push(await time(`/issues/${first.id}`))
  }
  const r = (x: number) => Math.round(x)
  return { issueListMs: r(median(lists)), issueMs: r(median(issues)), samples: SAMPLES }
}

/** Time to fetch one UI page completely, ms; anything but a 200 is an error. */
export async function timePage(url: string, token: string, path: string): Promise<number> {
  const t0 = performance.now()
  const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${token}` } })
  await res.text()
  if (res.status !== 200) throw new Error(`timing pages: ${path} answered ${res.status}`)
  return performance.now() - t0
}
