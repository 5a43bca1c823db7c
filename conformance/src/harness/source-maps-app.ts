/**
 * The minified browser app of the `source-maps` scenario (and of the browser source-map test):
 * a stock @sentry/browser bundled by esbuild (minified, external source maps with sources), its
 * debug IDs injected and its maps uploaded by a stock sentry-cli against the target, then served
 * from another origin and run in headless Chromium, where it throws from a named function two
 * calls deep and captures the error.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import type { Browser } from './browser.ts'
import { repoRoot } from './paths.ts'

const run = promisify(execFile)

/** The app's source: what the resolved frames must show (file `app.js`). */
export const APP_SOURCE = `
function explodeWithOriginalName(reason) {
  throw new Error('source-maps scenario: ' + reason)
}

function middleLayer(reason) {
  explodeWithOriginalName(reason.padEnd(4, '.'))
}

export function run(reason) {
  middleLayer(reason)
}
`

/** Where the original frames are in {@link APP_SOURCE} (1-based lines). */
export const ORIGINAL = {
  file: 'app.js',
  thrower: { function: 'explodeWithOriginalName', line: 3 },
  caller: { function: 'middleLayer', line: 7 },
  contextLine: "  throw new Error('source-maps scenario: ' + reason)",
} as const

/** The stock sentry-cli majors installed as npm aliases (conformance/package.json). */
export type SentryCli = 'sentry-cli-2' | 'sentry-cli-3'

/**
 * Bundles the app with the SDK package `sdk` (an npm name or alias) into a fresh directory;
 * `salt` extra helpers give the functions other minified names per build; `release`, when
 * given, is the SDK's `release` option. Returns `dist/`.
 */
export async function buildMinifiedApp(
  sdk: string,
  salt: number,
  release?: string,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'conformance-source-maps-'))
  const helpers = Array.from(
    { length: salt },
    (_, i) => `export function helper${i}(v) { return v + ${i} }`,
  )
  await writeFile(join(dir, 'app.js'), APP_SOURCE + helpers.join('\n'))
  await writeFile(
    join(dir, 'entry.js'),
    `import * as Sentry from '${sdk}'
import { run } from './app.js'
const params = new URLSearchParams(window.location.search)
Sentry.init({ dsn: params.get('dsn'), integrations: []${release === undefined ? '' : `, release: ${JSON.stringify(release)}`} })
window.__send = async () => {
  try { run('x') } catch (e) { Sentry.captureException(e) }
  return Sentry.flush(10000)
}
`,
  )
  const out = join(dir, 'dist')
  await build({
    entryPoints: [join(dir, 'entry.js')],
    bundle: true,
    minify: true,
    sourcemap: 'external',
    sourcesContent: true,
    format: 'iife',
    outdir: out,
    entryNames: 'app.min',
    logLevel: 'silent',
    nodePaths: [join(repoRoot, 'node_modules')],
  })
  return out
}

/** What an upload did: the CLI's version and the debug ID it injected. */
export interface Upload {
  cli: string
  debugId: string
}

/**
 * `sentry-cli sourcemaps inject` then `sourcemaps upload` of `out` with a stock CLI against
 * `url` (SENTRY_URL), as a user's build step runs them; throws with the CLI's output on failure.
 */
export async function uploadWithCli(
  cli: SentryCli,
  out: string,
  target: { url: string; token: string; org: string; project: string },
): Promise<Upload> {
  const bin = join(repoRoot, 'node_modules', cli, 'bin', 'sentry-cli')
  const env = cliEnv(target)
  const version = (await run(bin, ['--version'], { env })).stdout.trim()
  await run(bin, ['sourcemaps', 'inject', out], { env })
  const js = await readFile(join(out, 'app.min.js'), 'utf8')
  const debugId = /\/\/# debugId=([0-9a-f-]{36})/.exec(js)?.[1]
  if (debugId === undefined) throw new Error(`${version} injected no debug ID`)
  await run(bin, ['sourcemaps', 'upload', out], { env })
  return { cli: version, debugId }
}

/**
 * The legacy upload of sentry-cli 2.x that CI scripts still run: `releases new`, then
 * `releases files <release> upload` of the minified file (its map named by a stored
 * `Sourcemap` header, as esbuild's external map leaves no comment) and of its map, each under
 * its `~/` URL, then `releases files <release> list`; returns the list's output.
 */
export async function uploadReleaseFilesWithCli(
  out: string,
  target: { url: string; token: string; org: string; project: string },
  release: string,
): Promise<{ cli: string; list: string }> {
  const bin = join(repoRoot, 'node_modules', 'sentry-cli-2', 'bin', 'sentry-cli')
  const env = cliEnv(target)
  const version = (await run(bin, ['--version'], { env })).stdout.trim()
  await run(bin, ['releases', 'new', release], { env })
  const files = ['releases', 'files', release]
  await run(
    bin,
    [
      ...files,
      'upload',
      join(out, 'app.min.js'),
      '~/app.min.js',
      '-H',
      'Sourcemap: app.min.js.map',
    ],
    { env },
  )
  await run(bin, [...files, 'upload', join(out, 'app.min.js.map'), '~/app.min.js.map'], { env })
  return { cli: version, list: (await run(bin, [...files, 'list'], { env })).stdout }
}

/** Runs one more `sentry-cli` 2.x command with the target's settings; its standard output. */
export async function sentryCli2(
  target: { url: string; token: string; org: string; project: string },
  args: string[],
): Promise<string> {
  const bin = join(repoRoot, 'node_modules', 'sentry-cli-2', 'bin', 'sentry-cli')
  return (await run(bin, args, { env: cliEnv(target) })).stdout
}

/** The environment a stock sentry-cli runs in against the target. */
function cliEnv(target: { url: string; token: string; org: string; project: string }) {
  return {
    PATH: process.env['PATH'] ?? '',
    HOME: tmpdir(),
    SENTRY_URL: target.url,
    SENTRY_AUTH_TOKEN: target.token,
    SENTRY_ORG: target.org,
    SENTRY_PROJECT: target.project,
    // No call home: the sandboxed CI has no network, and the check would wait for its timeout.
    SENTRY_DISABLE_UPDATE_CHECK: '1',
  }
}

/**
 * Serves the built app on another origin than the server, opens it in Chromium with `dsn` and
 * sends its error; resolves once the SDK reported a complete flush.
 */
export async function throwInPage(browser: Browser, out: string, dsn: string): Promise<void> {
  const files = new Map([
    ['/app.min.js', await readFile(join(out, 'app.min.js'))],
    ['/', Buffer.from('<!doctype html><script src="/app.min.js"></script>')],
  ])
  const server = createServer((req, res) => {
    const body = files.get((req.url ?? '/').split('?')[0] ?? '/')
    if (body === undefined) res.writeHead(404).end()
    else
      res
        .writeHead(200, {
          'content-type': req.url?.endsWith('.js') ? 'text/javascript' : 'text/html',
        })
        .end(body)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const page = await browser.context.newPage()
  try {
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`
    await page.goto(`${origin}/?dsn=${encodeURIComponent(dsn)}`)
    await page.waitForFunction("typeof window.__send === 'function'")
    const flushed = await page.evaluate('window.__send()')
    if (flushed !== true) throw new Error('the SDK did not report a complete flush')
  } finally {
    await page.close()
    // Chromium keeps its connections open: close them, or `close` waits for their timeout.
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}
