/**
 * Scenario `source-maps` for the browser SDKs: an app bundled by esbuild (minified, with source
 * maps) with stock @sentry/browser 11 or 10, debug IDs injected and the maps uploaded by stock
 * sentry-cli (3.8 for v11, 2.58 for v10), run in headless Chromium, throws from a named function
 * two calls deep. The stored event carries the original function, file, line and context, and
 * both SDKs' builds (other minified names) land in one issue. Runs against the server the
 * conformance project starts, like every other scenario.
 */
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { Api, type Project } from '../harness/api.ts'
import { type Browser, launchBrowser } from '../harness/browser.ts'
import { repoRoot } from '../harness/paths.ts'
import { waitFor } from '../harness/wait.ts'

const run = promisify(execFile)
const url = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(url, token)

const APP = `
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

const frameSchema = z.looseObject({
  function: z.string().optional(),
  filename: z.string().optional(),
  lineno: z.number().optional(),
  context_line: z.string().optional(),
})
const eventSchema = z.looseObject({
  issue_id: z.number(),
  exception: z.object({
    values: z.array(z.looseObject({ stacktrace: z.object({ frames: z.array(frameSchema) }) })),
  }),
})

let browser: Browser
let project: Project
let slug: string
const issues: number[] = []

beforeAll(async () => {
  browser = await launchBrowser()
  project = await api.createProject('browser-source-maps')
  const detail = await fetch(`${url}/api/0/projects/${project.id}/`, {
    headers: { authorization: `Bearer ${token}` },
  })
  slug = z.object({ slug: z.string() }).parse(await detail.json()).slug
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

/** Builds the app with one SDK, injects and uploads with one CLI; returns the built directory. */
async function builtApp(sdk: string, cli: 'sentry-cli-2' | 'sentry-cli-3', salt: number) {
  const dir = await mkdtemp(join(tmpdir(), 'conformance-source-maps-'))
  // Extra helpers (a number per build) give the three functions other minified names.
  const helpers = Array.from(
    { length: salt },
    (_, i) => `export function helper${i}(v) { return v + ${i} }`,
  )
  await writeFile(join(dir, 'app.js'), APP + helpers.join('\n'))
  await writeFile(
    join(dir, 'entry.js'),
    `import * as Sentry from '${sdk}'
import { run } from './app.js'
const params = new URLSearchParams(window.location.search)
Sentry.init({ dsn: params.get('dsn'), integrations: [] })
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
  const bin = join(repoRoot, 'node_modules', cli, 'bin', 'sentry-cli')
  const env = {
    PATH: process.env['PATH'] ?? '',
    HOME: tmpdir(),
    SENTRY_URL: url,
    SENTRY_AUTH_TOKEN: token,
    SENTRY_ORG: 'default',
    SENTRY_PROJECT: slug,
    // No call home: the sandboxed CI has no network, and the check would wait for its timeout.
    SENTRY_DISABLE_UPDATE_CHECK: '1',
  }
  await run(bin, ['sourcemaps', 'inject', out], { env })
  await run(bin, ['sourcemaps', 'upload', out], { env })
  return out
}

/** Serves the built app on another origin, sends its error from Chromium; returns the event id. */
async function sendFrom(out: string): Promise<string> {
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
  const before = new Set<string>()
  for (const i of await api.issues(project.id))
    for (const e of await api.issueEvents(i.id)) before.add(e.event_id)
  const page = await browser.context.newPage()
  try {
    const origin = `http://localhost:${(server.address() as AddressInfo).port}`
    await page.goto(`${origin}/?dsn=${encodeURIComponent(project.dsn)}`)
    await page.waitForFunction("typeof window.__send === 'function'")
    expect(await page.evaluate('window.__send()')).toBe(true)
    const all = await waitFor(
      async () => {
        const list = await api.issues(project.id)
        const ids: string[] = []
        for (const i of list) for (const e of await api.issueEvents(i.id)) ids.push(e.event_id)
        const fresh = ids.filter((id) => !before.has(id))
        return fresh.length > 0 ? fresh : undefined
      },
      { timeout: 10_000, message: 'the event is stored' },
    )
    return all[0] as string
  } finally {
    await page.close()
    // Chromium keeps its connections open: close them, or `close` waits for their timeout.
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
}

describe('source-maps', () => {
  it.each([
    ['@sentry/browser', 'sentry-cli-3', 3],
    ['sentry-browser-10', 'sentry-cli-2', 7],
  ] as const)(
    '%s, maps uploaded by %s: the original frames',
    async (sdk, cli, salt) => {
      const out = await builtApp(sdk, cli, salt)
      const id = await sendFrom(out)
      const event = eventSchema.parse(await api.event(project.id, id))
      const frames = event.exception.values.at(-1)?.stacktrace.frames ?? []
      expect(frames.at(-1)).toMatchObject({
        function: 'explodeWithOriginalName',
        filename: 'app.js',
        lineno: 3,
        context_line: "  throw new Error('source-maps scenario: ' + reason)",
      })
      expect(frames.at(-2)).toMatchObject({ function: 'middleLayer', lineno: 7 })
      issues.push(event.issue_id)
    },
    180_000,
  )

  it('both builds are one issue', () => {
    expect(issues).toHaveLength(2)
    expect(new Set(issues).size).toBe(1)
  })
})
