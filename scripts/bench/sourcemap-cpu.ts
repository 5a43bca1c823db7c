/**
 * The whole ingest path's CPU per event with and without source-map resolution, in one process
 * so both halves see the same machine: the built app (`server/dist`, or each `--root`'s) on a
 * SQLite file (its writer thread digests, as `npm start` runs), one project with the bench
 * app's bundle uploaded by stock sentry-cli 3 and one without, the same minified browser event
 * (scripts/bench/sourcemaps.ts) sent to each in alternating rounds of 50 concurrent requests
 * (`app.inject`: routing, envelope, quota, digest, group commit; no sockets). Process CPU time
 * covers every thread (main, writer). `without / with` is the events/s ratio of a CPU-bound
 * server. Used where wrk's events/s is noise: on a loaded shared machine, the server's share of
 * the cores swings between runs, while both halves of one round share it.
 *
 *   npx tsc -b server && node --import tsx scripts/bench/sourcemap-cpu.ts [--rounds 9] [--events 1000] [--root DIR]…
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs, promisify } from 'node:util'
import { median } from './report.ts'
import { browserEvent, buildApp } from './sourcemaps.ts'

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    events: { type: 'string', default: '1000' },
    root: { type: 'string', multiple: true },
  },
})

const CLI = join(import.meta.dirname, '../../node_modules/sentry-cli-3/bin/sentry-cli')
const TOKEN = 'bench-sourcemap-cpu-admin-token'
const here = resolve(import.meta.dirname, '../..')

type Inject = (o: {
  method?: string
  url: string
  headers?: Record<string, string>
  payload?: unknown
}) => Promise<{ statusCode: number; body: string; json<T>(): T }>
interface App {
  inject: Inject
  listen(o: { port: number; host: string }): Promise<string>
  close(): Promise<void>
}

async function start(root: string, dir: string): Promise<App> {
  const { loadConfig } = await import(resolve(root, 'server/dist/config.js'))
  const { buildApp } = await import(resolve(root, 'server/dist/app.js'))
  const config = {
    ...loadConfig({ DATA_DIR: dir, INGEST_ADMIN_TOKEN: TOKEN }),
    logLevel: 'silent',
    retentionDays: 0,
  }
  return (await buildApp(config)) as App
}

const auth = { authorization: `Bearer ${TOKEN}` }

async function project(app: App, name: string): Promise<{ id: number; slug: string; key: string }> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/0/projects/',
    headers: auth,
    payload: { name },
  })
  const p = res.json<{ id: number; slug: string; dsn: string }>()
  return { id: p.id, slug: p.slug, key: new URL(p.dsn).username }
}

/** CPU ticks (1/100 s) per thread of this process, by thread id (Linux `/proc`). */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>()
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      out.set(tid, Number(f[11]) + Number(f[12]))
    } catch {
      // The thread ended.
    }
  }
  return out
}

/** The busiest threads of a round: main, then the busiest other (the SQLite writer), µs/event. */
function split(before: Map<string, number>, count: number): { main: number; other: number } {
  const after = threadTicks()
  const main = String(process.pid)
  let other = 0
  let mainTicks = 0
  for (const [tid, t] of after) {
    const d = t - (before.get(tid) ?? 0)
    if (tid === main) mainTicks = d
    else other = Math.max(other, d)
  }
  return { main: (mainTicks * 10_000) / count, other: (other * 10_000) / count }
}

const bench = buildApp(0)
const event = JSON.stringify(browserEvent(bench, 'a'.repeat(32)))
let n = 0
/** The bench event's envelope under a fresh id. */
const envelope = (id: string): string =>
  `${JSON.stringify({ event_id: id })}\n${JSON.stringify({ type: 'event' })}\n${event.replace('a'.repeat(32), id)}\n`
/** Per round: the main thread's and the busiest other thread's CPU µs per event. */
const threads = {
  with: [] as { main: number; other: number }[],
  without: [] as { main: number; other: number }[],
}

/** One round: `count` events to the project in waves of 50; CPU µs per event. */
async function round(
  app: App,
  p: { id: number; key: string },
  count: number,
  into?: { main: number; other: number }[],
): Promise<number> {
  const url = `/api/${p.id}/envelope/?sentry_key=${p.key}&sentry_version=7`
  // The bodies are made before the clock starts: only the server's work is counted.
  const bodies = Array.from({ length: count }, () => envelope((++n).toString(16).padStart(32, 'c')))
  const ticks = threadTicks()
  const start = process.cpuUsage()
  for (let sent = 0; sent < count; sent += 50) {
    await Promise.all(
      bodies.slice(sent, sent + 50).map((body) => {
        return app.inject({ method: 'POST', url, payload: body }).then((r) => {
          if (r.statusCode !== 200) throw new Error(`refused: ${r.statusCode} ${r.body}`)
        })
      }),
    )
  }
  const d = process.cpuUsage(start)
  into?.push(split(ticks, count))
  return (d.user + d.system) / count
}

const roots = (opts.root ?? [here]).map((r) => resolve(r))
const rounds = Number(opts.rounds)
const count = Number(opts.events)
for (const root of roots) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sourcemap-cpu-'))
  const app = await start(root, dir)
  try {
    const url = await app.listen({ port: 0, host: '127.0.0.1' })
    const withMap = await project(app, 'with bundle')
    const without = await project(app, 'without bundle')
    // Asynchronously: the server answering the CLI runs in this process.
    await promisify(execFile)(
      CLI,
      ['sourcemaps', 'upload', '--org', 'default', '--project', withMap.slug, bench.out],
      {
        env: {
          ...process.env,
          SENTRY_URL: url,
          SENTRY_AUTH_TOKEN: TOKEN,
          SENTRY_LOG_LEVEL: 'error',
        },
      },
    )
    // Warm-up, and a check that the figures mean what they say.
    // (A round each of the full size: the first rounds ran ~1.6× slower while V8 optimised.)
    for (let i = 0; i < 2; i++) {
      await round(app, withMap, count)
      await round(app, without, count)
    }
    const last = (++n).toString(16).padStart(32, 'c')
    const body = envelope(last)
    await app.inject({
      method: 'POST',
      url: `/api/${withMap.id}/envelope/?sentry_key=${withMap.key}`,
      payload: body,
    })
    const stored = await app.inject({
      url: `/api/0/projects/${withMap.id}/events/${last}/`,
      headers: auth,
    })
    if (!stored.body.includes('explodeWithOriginalName'))
      throw new Error(`not resolved: ${stored.body.slice(0, 300)}`)
    const a: number[] = []
    const b: number[] = []
    for (let r = 0; r < rounds; r++) {
      // Alternate which goes first, so a change of load mid-round hits both alike.
      if (r % 2 === 0) {
        a.push(await round(app, withMap, count, threads.with))
        b.push(await round(app, without, count, threads.without))
      } else {
        b.push(await round(app, without, count, threads.without))
        a.push(await round(app, withMap, count, threads.with))
      }
    }
    const ratios = a.map((x, i) => (b[i] ?? Number.NaN) / x)
    const fmt = (xs: number[]) =>
      `${median(xs).toFixed(1)} µs (${xs.map((x) => x.toFixed(0)).join(' ')})`
    console.log(`${root}: ${rounds} rounds of ${count} events, CPU per event (all threads)`)
    console.log(`  with bundle:    ${fmt(a)}`)
    console.log(`  without bundle: ${fmt(b)}`)
    console.log(
      `  without / with (events/s ratio, CPU bound): median ${median(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`,
    )
    const per = (xs: { main: number; other: number }[]) =>
      `main thread ${median(xs.map((x) => x.main)).toFixed(0)} µs, busiest other thread (the SQLite writer) ${median(xs.map((x) => x.other)).toFixed(0)} µs`
    console.log(`  per event with bundle:    ${per(threads.with)}`)
    console.log(`  per event without bundle: ${per(threads.without)}`)
    threads.with.length = 0
    threads.without.length = 0
    console.log(
      `  peak RSS of this process so far: ${Math.round(process.resourceUsage().maxRSS / 1024)} MiB`,
    )
  } finally {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
