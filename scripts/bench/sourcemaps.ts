/**
 * `npm run bench -- --sourcemaps`: a minified browser error event whose frames resolve through
 * an uploaded source map, against the same event on a server with no bundle (the resolver's
 * cheap path), interleaved; plus the first resolution of a ~5 MB map (fetch from the store,
 * inflate, parse, look up, all inside one event's request). The app and its map are built
 * here with esbuild and uploaded by stock sentry-cli 3 (node_modules/sentry-cli-3), as a user
 * would. docs/source-maps.md "Cost" has the figures.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { buildSync } from 'esbuild'
import { type Instance, type StartOptions, startInstance } from './instance.ts'
import { type IngestFigures, type LoadShape, measureIngest } from './measure.ts'
import { formatIngest, medianOf } from './report.ts'
import { ENVELOPE, envelopeEventId, withSentAtNow } from './wrk.ts'

const CLI = join(import.meta.dirname, '../../node_modules/sentry-cli-3/bin/sentry-cli')
const PAGE_URL = 'https://shop.example.com/assets/app.min.js'

/**
 * The app: the functions the event's frames run through, and `filler` generated functions with
 * their source so the map is ~`mapBytes` (the big-map case) or small.
 */
function appSource(filler: number): string {
  const fill = Array.from(
    { length: filler },
    (_, i) =>
      `export function generatedHelperNumber${i}(value) {\n  const doubled = value * ${i % 97} + ${i}\n  return doubled > 1000 ? 'large ' + doubled : 'small ' + doubled\n}`,
  ).join('\n')
  return `
function explodeWithOriginalName(reason) {
  throw new Error('checkout failed: ' + reason)
}
function middleLayer(reason) {
  explodeWithOriginalName(reason.padEnd(4, '.'))
}
export function run(reason) {
  middleLayer(reason)
}
${fill}
`
}

/** Builds the app, injects debug IDs; returns the file, its map's size and the debug ID. */
export function buildApp(filler: number) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-sourcemaps-'))
  writeFileSync(join(dir, 'app.js'), appSource(filler))
  const out = join(dir, 'dist')
  buildSync({
    entryPoints: [join(dir, 'app.js')],
    bundle: true,
    minify: true,
    sourcemap: 'external',
    sourcesContent: true,
    format: 'iife',
    globalName: 'shop',
    outdir: out,
    entryNames: 'app.min',
    logLevel: 'silent',
  })
  execFileSync(CLI, ['sourcemaps', 'inject', out], {
    env: { ...process.env, SENTRY_LOG_LEVEL: 'error' },
  })
  const file = join(out, 'app.min.js')
  const id = /\/\/# debugId=([0-9a-f-]{36})/.exec(readFileSync(file, 'utf8'))?.[1]
  if (id === undefined) throw new Error('sentry-cli inject wrote no debug ID')
  return { out, file, debugId: id, mapBytes: statSync(join(out, 'app.min.js.map')).size }
}

/** The thrown error's frames of the bundle, oldest first (V8 positions, as Chromium's). */
function framesOf(file: string) {
  const sandbox: Record<string, unknown> = {}
  sandbox['globalThis'] = sandbox
  runInNewContext(readFileSync(file, 'utf8'), sandbox, { filename: PAGE_URL })
  let stack = ''
  try {
    runInNewContext(`shop.run('x')`, sandbox, { filename: 'https://shop.example.com/page.js' })
  } catch (err) {
    stack = (err as Error).stack ?? ''
  }
  return stack
    .split('\n')
    .map((l) => /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && m[2] === PAGE_URL)
    .map((m) => ({
      function: m[1] ?? '?',
      abs_path: PAGE_URL,
      filename: '/assets/app.min.js',
      lineno: Number(m[3]),
      colno: Number(m[4]),
      in_app: true,
    }))
    .reverse()
}

/** One browser error event with the bundle's frames and debug image (as @sentry/browser sends). */
export function browserEvent(app: ReturnType<typeof buildApp>, eventId: string) {
  return {
    event_id: eventId,
    platform: 'javascript',
    level: 'error',
    sdk: { name: 'sentry.javascript.browser', version: '11.12.0' },
    request: { url: 'https://shop.example.com/checkout', headers: { 'User-Agent': 'Mozilla/5.0' } },
    exception: {
      values: [
        {
          type: 'Error',
          value: 'checkout failed: x...',
          stacktrace: { frames: framesOf(app.file) },
          mechanism: { type: 'onerror', handled: false },
        },
      ],
    },
    debug_meta: { images: [{ type: 'sourcemap', code_file: PAGE_URL, debug_id: app.debugId }] },
  }
}

/** An envelope file of {@link browserEvent}. */
function envelopeFile(app: ReturnType<typeof buildApp>): string {
  const eventId = 'a'.repeat(32)
  const event = browserEvent(app, eventId)
  const path = join(mkdtempSync(join(tmpdir(), 'bench-envelope-')), 'browser.envelope')
  writeFileSync(
    path,
    `${JSON.stringify({ event_id: eventId })}\n${JSON.stringify({ type: 'event' })}\n${JSON.stringify(event)}\n`,
  )
  return path
}

/** Uploads the app's maps to the instance's project with stock sentry-cli 3. */
async function upload(inst: Instance, out: string): Promise<void> {
  const project = (await (
    await fetch(`${inst.url}/api/0/projects/${inst.projectId}/`, {
      headers: { authorization: `Bearer ${inst.token}` },
    })
  ).json()) as { slug: string }
  execFileSync(CLI, ['sourcemaps', 'upload', '--org', 'default', '--project', project.slug, out], {
    env: {
      ...process.env,
      SENTRY_URL: inst.url,
      SENTRY_AUTH_TOKEN: inst.token ?? '',
      SENTRY_LOG_LEVEL: 'error',
    },
  })
}

/** Posts the envelope once; returns the request's wall time in ms. */
async function postOnce(inst: Instance, body: string, n: number): Promise<number> {
  const old = body === ENVELOPE ? envelopeEventId() : 'a'.repeat(32)
  const text = withSentAtNow(readFileSync(body, 'utf8')).replaceAll(
    old,
    n.toString(16).padStart(32, 'b'),
  )
  const t0 = performance.now()
  const res = await fetch(new URL(inst.target.path, inst.url), { method: 'POST', body: text })
  const ms = performance.now() - t0
  if (res.status !== 200) throw new Error(`bench event refused: ${res.status} ${await res.text()}`)
  return ms
}

/** Checks that the stored bench event was resolved (or not), so a figure means what it says. */
async function assertResolved(inst: Instance, n: number, want: boolean): Promise<void> {
  const id = n.toString(16).padStart(32, 'b')
  const res = await fetch(`${inst.url}/api/0/projects/${inst.projectId}/events/${id}/`, {
    headers: { authorization: `Bearer ${inst.token}` },
  })
  const text = await res.text()
  if (text.includes('explodeWithOriginalName') !== want) {
    throw new Error(`bench event ${want ? 'not resolved' : 'resolved'}: ${text.slice(0, 300)}`)
  }
}

/** The `--sourcemaps` mode: interleaved runs with and without a bundle, and the big map. */
export async function sourceMapsMain(
  o: StartOptions,
  shape: LoadShape,
  runs: number,
): Promise<void> {
  const small = buildApp(0)
  const body = envelopeFile(small)
  console.log(
    `sourcemaps: minified browser event, map ${small.mapBytes} bytes; ${runs} run(s) each`,
  )
  const withMap: IngestFigures[] = []
  const without: IngestFigures[] = []
  for (let r = 1; r <= runs; r++) {
    for (const resolved of r % 2 === 1 ? [true, false] : [false, true]) {
      const inst = await startInstance(o)
      try {
        if (resolved) await upload(inst, small.out)
        await postOnce(inst, body, 1)
        await assertResolved(inst, 1, resolved)
        const f = await measureIngest({ ...inst.target, body }, shape)
        ;(resolved ? withMap : without).push(f)
        console.log(
          `run ${r} ${resolved ? 'with bundle:   ' : 'without bundle:'} ${formatIngest(f)}`,
        )
      } finally {
        await inst.stop()
      }
    }
  }
  const a = medianOf(withMap)
  const b = medianOf(without)
  console.log(`\nmedian with bundle:    ${formatIngest(a)}`)
  console.log(`median without bundle: ${formatIngest(b)}`)
  console.log(
    `ratio with / without: ${Math.round((a.eventsPerSec / b.eventsPerSec) * 1000) / 1000}`,
  )

  // The first event needing a ~5 MB map pays for reading and parsing it.
  const big = buildApp(22_000)
  const bigBody = envelopeFile(big)
  const inst = await startInstance(o)
  try {
    await upload(inst, big.out)
    const first = await postOnce(inst, bigBody, 2)
    await assertResolved(inst, 2, true)
    const next: number[] = []
    for (let i = 3; i < 13; i++) next.push(await postOnce(inst, bigBody, i))
    next.sort((x, y) => x - y)
    // The same server's answer time for the captured Node SDK event, which needs no map.
    const plain: number[] = []
    for (let i = 20; i < 30; i++) plain.push(await postOnce(inst, ENVELOPE, i))
    plain.sort((x, y) => x - y)
    console.log(
      `big map (${(big.mapBytes / 1024 / 1024).toFixed(1)} MiB): first event ${Math.round(first)} ms, then median ${next[5]?.toFixed(1)} ms per event (one at a time; an event needing no map: ${plain[5]?.toFixed(1)} ms)`,
    )
  } finally {
    await inst.stop()
  }
}
