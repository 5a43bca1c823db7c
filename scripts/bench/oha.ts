/**
 * The open-loop generator of `--overload`: `oha` (Rust, tokio) from crates.io, which sends at a
 * fixed rate (`-q`) whatever the server answers and, with `--latency-correction`, times every
 * request from when it was due, not from when a free connection let it go (no coordinated
 * omission: a request that waited for a connection counts its wait). wrk is closed-loop (each
 * connection sends its next request only after the answer), and Debian has no wrk2.
 *
 * Built once with cargo into `.cache/tools/oha/` (pinned, `--locked`) when it is missing; the
 * normal runs keep wrk. Every request posts the captured envelope without its `event_id`, so
 * the server assigns a fresh one to each and every accepted request is a stored event.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'
import { ENVELOPE, envelopeEventId, hasBinary, withSentAtNow } from './wrk.ts'

/** The oha release the bench is measured with (crates.io). */
export const OHA_VERSION = '1.16.0'
const ROOT = resolve('.cache/tools/oha')
const BIN = join(ROOT, 'bin', 'oha')

/** The oha binary: the cached build, else one on PATH of the pinned version, else built now. */
export function ensureOha(): string {
  if (existsSync(BIN)) return BIN
  if (hasBinary('oha')) {
    const v = spawnSync('oha', ['--version'], { encoding: 'utf8' }).stdout
    if (v.includes(OHA_VERSION)) return 'oha'
  }
  if (!hasBinary('cargo')) {
    throw new Error(`--overload needs oha ${OHA_VERSION}; install Rust's cargo to build it`)
  }
  console.log(`building oha ${OHA_VERSION} into ${ROOT} (once; a few minutes on 2 cores)`)
  const r = spawnSync(
    'cargo',
    ['install', 'oha', '--version', OHA_VERSION, '--locked', '--root', ROOT],
    { stdio: 'inherit' },
  )
  if (r.status !== 0 || !existsSync(BIN)) throw new Error('building oha failed')
  return BIN
}

/** What one open-loop run measured (latencies from when each request was due). */
export interface OpenLoopResult {
  seconds: number
  offeredPerSec: number
  /** Requests answered, by status. */
  status: { ok: number; r429: number; r503: number; other: number }
  /** Requests without an answer: connection errors, timeouts (cut at the end excluded). */
  failed: number
  /** Requests still open when the run ended (oha aborts them). */
  cutAtEnd: number
  acceptedP50Ms: number
  acceptedP99Ms: number
  acceptedMaxMs: number
  /** Accepted (200) answers per second of the run, by the second they were due in. */
  acceptedBySecond: number[]
}

/** The envelope without its event ids: the server gives each request a fresh one. */
function bodyWithoutEventId(dir: string): string {
  const id = envelopeEventId()
  const body = withSentAtNow(readFileSync(ENVELOPE, 'latin1'))
    .replaceAll(`"event_id":"${id}",`, '')
    .replaceAll(`,"event_id":"${id}"`, '')
  if (body.includes(id)) throw new Error(`${ENVELOPE}: could not remove the event id`)
  const file = join(dir, 'body.envelope')
  writeFileSync(file, body, 'latin1')
  return file
}

const quantile = (sorted: number[], q: number) =>
  sorted.length === 0
    ? Number.NaN
    : (sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * q))] as number)

/** Posts at a constant rate for `seconds` over at most `connections` connections. */
export async function runOpenLoop(o: {
  url: string
  rate: number
  seconds: number
  connections: number
}): Promise<OpenLoopResult> {
  const bin = ensureOha()
  const dir = mkdtempSync(join(tmpdir(), 'bench-oha-'))
  try {
    const db = join(dir, 'requests.sqlite')
    const args = [
      '-z',
      `${o.seconds}s`,
      '-c',
      String(o.connections),
      '-q',
      String(Math.round(o.rate)),
      '--latency-correction',
      '--no-tui',
      '--output-format',
      'json',
      '--db-url',
      db,
      '-t',
      '30s',
      '-m',
      'POST',
      '-T',
      'application/x-sentry-envelope',
      '-D',
      bodyWithoutEventId(dir),
      o.url,
    ]
    const out = await new Promise<string>((res, rej) => {
      const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString()
      })
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString()
      })
      child.on('error', rej)
      child.on('close', (code) =>
        code === 0 ? res(stdout) : rej(new Error(`oha failed (${code}): ${stderr.trim()}`)),
      )
    })
    const summary = JSON.parse(out) as {
      statusCodeDistribution: Record<string, number>
      errorDistribution: Record<string, number>
    }
    const status = { ok: 0, r429: 0, r503: 0, other: 0 }
    for (const [code, n] of Object.entries(summary.statusCodeDistribution)) {
      if (code === '200') status.ok += n
      else if (code === '429') status.r429 += n
      else if (code === '503') status.r503 += n
      else status.other += n
    }
    let failed = 0
    let cutAtEnd = 0
    for (const [what, n] of Object.entries(summary.errorDistribution)) {
      if (/deadline/i.test(what)) cutAtEnd += n
      else failed += n
    }
    // Every answered request, timed from when it was due (start_latency_correction).
    const conn = new Database(db, { readonly: true })
    const rows = conn
      .prepare<[], { due: number; ms: number }>(
        'SELECT coalesce(start_latency_correction, start) AS due, duration * 1000 AS ms FROM oha WHERE status = 200',
      )
      .all()
    conn.close()
    const ms = rows.map((r) => r.ms).sort((a, b) => a - b)
    const bySecond = Array.from({ length: Math.ceil(o.seconds) }, () => 0)
    for (const r of rows) {
      const s = Math.floor(r.due)
      if (s >= 0 && s < bySecond.length) bySecond[s] = (bySecond[s] ?? 0) + 1
    }
    return {
      seconds: o.seconds,
      offeredPerSec: Math.round(o.rate),
      status,
      failed,
      cutAtEnd,
      acceptedP50Ms: quantile(ms, 0.5),
      acceptedP99Ms: quantile(ms, 0.99),
      acceptedMaxMs: ms.length === 0 ? Number.NaN : (ms[ms.length - 1] as number),
      acceptedBySecond: bySecond,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
