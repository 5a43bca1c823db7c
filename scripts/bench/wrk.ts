/**
 * The load generator of `npm run bench`: Debian's `wrk` (compiled C, epoll; it is not the
 * bottleneck — the report shows its own CPU beside the server's) driving `fresh-id.lua`, which
 * posts the captured envelope with a fresh event id per request (and, with `issues`, an
 * exception type out of N per request; with `users`, a user out of N).
 */
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const LUA = fileURLToPath(new URL('./fresh-id.lua', import.meta.url))

/** The payload every request carries: a stock Node SDK error event of about 4 KiB. */
export const ENVELOPE = 'fixtures/envelopes/event/node-11-error.envelope'

/**
 * The exception type in {@link ENVELOPE} that `--issues N` varies per request (`Error0` …
 * `Error{N-1}`): the type is part of the grouping hash, so each is an issue of its own, while
 * the payload keeps its size and shape.
 */
export const ISSUE_TYPE_MARKER = '"type":"Error"'

/**
 * The user `--users N` gives each event (`"user":{"id":"bench-user<k>"}`, k one of N per
 * request): the captured event names none, and a user is what the counter fold's distinct-user
 * rule and `user` tag rows cost (a fold's user rows once ran as a join of every row against
 * every other, unseen by a bench whose events had no user: docs/postgresql.md).
 */
export const USER_ID_MARKER = '"id":"bench-user"'

/**
 * A copy of `file` in `dir` whose event item names the user of {@link USER_ID_MARKER}, first
 * in its object (the item headers carry no length, so the payload may grow).
 */
export function withUser(file: string, dir: string): string {
  const lines = readFileSync(file, 'utf8').split('\n')
  const at = lines.findIndex(
    (l, i) => i > 0 && /^\{"type":"event"/.test(lines[i - 1] ?? '') && l.startsWith('{'),
  )
  if (at < 0) throw new Error(`${file} has no event item to add a user to`)
  lines[at] = `{"user":{${USER_ID_MARKER}},${(lines[at] as string).slice(1)}`
  const out = join(dir, `with-user-${basename(file)}`)
  writeFileSync(out, lines.join('\n'))
  return out
}

/**
 * The envelope text with its header's `sent_at` set to now, as a stock SDK sends it: the
 * captured fixture's `sent_at` is days old, and the server corrects every event of a sender
 * whose clock is 55 minutes or more off (docs/decisions.md), which no real SDK's traffic
 * costs. Same length (an ISO time with milliseconds), so nothing else in the payload moves.
 */
export function withSentAtNow(text: string): string {
  return text.replace(/"sent_at":"[^"]*"/, `"sent_at":"${new Date().toISOString()}"`)
}

/** A copy of `file` with {@link withSentAtNow} applied, in the temporary directory. */
function sentNow(file: string): string {
  const out = join(tmpdir(), `bench-${process.pid}-${basename(file)}`)
  writeFileSync(out, withSentAtNow(readFileSync(file, 'latin1')), 'latin1')
  return out
}

/** One wrk run's figures. */
export interface WrkResult {
  seconds: number
  requests: number
  /** Answers that were not 2xx/3xx (wrk's own count). */
  non2xx: number
  socketErrors: number
  timeouts: number
  p50Ms: number
  p99Ms: number
  maxMs: number
  /** Answers by status; only when `countStatus` was asked for. */
  status?: { ok: number; r429: number; r503: number; other: number }
  /** CPU the generator itself used, ms (user + system, from its parent shell's child times). */
  generatorCpuMs: number
}

/** What to load. */
export interface WrkOptions {
  /** Base URL of the first target (wrk needs one); `addrs` spreads threads over more. */
  url: string
  /** Path with query, e.g. `/api/1/envelope/?sentry_key=…&sentry_version=7`. */
  path: string
  seconds: number
  connections: number
  threads?: number
  /** `host:port` of every target, for several nodes. */
  addrs?: string[]
  countStatus?: boolean
  timeoutSeconds?: number
  /** The envelope file to post (default {@link ENVELOPE}). */
  body?: string
  /** Spread the events over this many issues (default 1: one hot issue). */
  issues?: number
  /**
   * Each event names one of this many users (default 0: none); `body` must then hold
   * {@link USER_ID_MARKER} ({@link withUser}).
   */
  users?: number
}

/** Whether a binary is on PATH. */
export function hasBinary(name: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0
}

/** The event id inside the payload, which the Lua script replaces per request. */
export function envelopeEventId(file = ENVELOPE): string {
  const m = /"event_id":"([0-9a-f]{32})"/.exec(readFileSync(file, 'latin1'))
  if (m?.[1] === undefined) throw new Error(`${file} has no event_id`)
  return m[1]
}

/** Runs wrk once (closed loop) and parses the Lua script's summary line. */
export function runWrk(o: WrkOptions): Promise<WrkResult> {
  if (!hasBinary('wrk')) {
    throw new Error('wrk is not installed (Debian: apt-get install wrk); the bench needs it')
  }
  const bin = 'wrk'
  const args = [
    // Two threads for two cores; with several nodes one per node at least (threads pick nodes).
    `-t${o.threads ?? Math.max(2, o.addrs?.length ?? 0)}`,
    `-c${o.connections}`,
    `-d${Math.max(1, Math.round(o.seconds))}s`,
    `--timeout`,
    `${o.timeoutSeconds ?? 10}s`,
    '-s',
    LUA,
    new URL(o.path, o.url).href,
  ]
  // The shell prints its own /proc stat after wrk exits: fields cutime/cstime then hold wrk's CPU.
  const script = `"$0" "$@"; s=$?; echo "BENCH_STAT $(cat /proc/$$/stat)"; exit $s`
  const child = spawn('sh', ['-c', script, bin, ...args], {
    env: {
      ...process.env,
      BENCH_BODY: sentNow(o.body ?? ENVELOPE),
      BENCH_EVENT_ID: envelopeEventId(o.body),
      BENCH_PATH: o.path,
      BENCH_RUN_ID: randomBytes(6).toString('hex'),
      BENCH_ADDRS: (o.addrs ?? []).join(','),
      BENCH_COUNT_STATUS: o.countStatus === true ? '1' : '0',
      BENCH_ISSUES: String(o.issues ?? 1),
      BENCH_TYPE_MARKER: ISSUE_TYPE_MARKER,
      BENCH_USERS: String(o.users ?? 0),
      BENCH_USER_MARKER: USER_ID_MARKER,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString()
  })
  return new Promise((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code) => {
      const json = /^BENCH_JSON (.*)$/m.exec(out)?.[1]
      const stat = /^BENCH_STAT (.*)$/m.exec(out)?.[1]
      if (code !== 0 || json === undefined) {
        reject(new Error(`${bin} failed (${code}): ${err.trim() || out.trim()}`))
        return
      }
      const r = JSON.parse(json) as Record<string, number | boolean>
      const num = (k: string) => Number(r[k] ?? Number.NaN)
      resolve({
        seconds: num('durationUs') / 1e6,
        requests: num('requests'),
        non2xx: num('non2xx'),
        socketErrors: num('socketErrors'),
        timeouts: num('timeouts'),
        p50Ms: num('p50Us') / 1000,
        p99Ms: num('p99Us') / 1000,
        maxMs: num('maxUs') / 1000,
        ...(r['statusCounted'] === true
          ? { status: { ok: num('ok'), r429: num('r429'), r503: num('r503'), other: num('other') } }
          : {}),
        generatorCpuMs: stat === undefined ? Number.NaN : childCpuMs(stat),
      })
    })
  })
}

/** cutime + cstime of a /proc/<pid>/stat line, ms (USER_HZ is 100 on Linux). */
function childCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[13]) + Number(fields[14])) * 1000) / 100
}
