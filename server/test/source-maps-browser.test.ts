import { join } from 'node:path'
import { sentryEsbuildPlugin } from '@sentry/esbuild-plugin'
import { sentryVitePlugin } from '@sentry/vite-plugin'
import { build } from 'esbuild'
import type { FastifyInstance } from 'fastify'
import type { Browser } from 'playwright-core'
import { build as viteBuild } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { appSource, sentryCli, type UploadTeam, uploadTeam } from './source-maps/world.ts'
import { launchChromium, requireChromium } from './support/chromium.ts'
import { ADMIN, testApp } from './support/helpers.ts'
import { type StaticPages, serveStaticPages } from './support/static-pages.ts'

/**
 * The whole path in a real browser: an app bundled by esbuild with @sentry/browser 10 or 11,
 * debug IDs injected and the maps uploaded by stock sentry-cli (2.58, 3.8) or by
 * @sentry/esbuild-plugin, or built by Vite with the maps uploaded by @sentry/vite-plugin, loaded
 * in headless Chromium, throwing from a named function two calls deep. The issue page shows the
 * original function, file, line and context, and the four builds (other minified names, another
 * bundler) are one issue. SQLite and PostgreSQL.
 */

const ROOT = join(import.meta.dirname, '../..')

let app: FastifyInstance
let base: string
let team: UploadTeam
let browser: Browser
let pages: StaticPages | undefined
let pageBase: string
/** The directory each page path serves from (one built app per path prefix). */
const served = new Map<string, string>()

beforeAll(async () => {
  requireChromium()
  app = await testApp()
  team = await uploadTeam(app, 'Browser Shop')
  base = await app.listen({ port: 0, host: '127.0.0.1' })
  pages = await serveStaticPages((path) => {
    const [prefix, ...rest] = path.split('/')
    const dir = served.get(prefix ?? '')
    return dir === undefined ? undefined : join(dir, rest.join('/') || 'index.html')
  })
  pageBase = pages.url
  browser = await launchChromium()
}, 120_000)
afterAll(async () => {
  await browser?.close()
  await pages?.close()
  await app?.close()
})

type Uploader = 'sentry-cli 2' | 'sentry-cli 3' | '@sentry/esbuild-plugin' | '@sentry/vite-plugin'

/** Builds the app with one SDK, gets its maps uploaded one way, serves it under `/<name>/`. */
async function buildAndUpload(name: string, sdk: string, uploader: Uploader, salt: string) {
  const { mkdtemp, writeFile } = await import('node:fs/promises')
  const { tmpdir } = await import('node:os')
  const dir = await mkdtemp(join(tmpdir(), 'sourcemaps-browser-'))
  await writeFile(join(dir, 'app-source.js'), appSource(salt))
  const dsn = `http://${team.dsnKey}@${new URL(base).host}/${team.projectId}`
  await writeFile(
    join(dir, 'entry.js'),
    `import * as Sentry from '${sdk}'
import { run } from './app-source.js'
Sentry.init({ dsn: ${JSON.stringify(dsn)}, integrations: [] })
window.__send = async () => {
  try { run('x') } catch (e) { Sentry.captureException(e) }
  return Sentry.flush(10000)
}
`,
  )
  const out = join(dir, 'dist')
  // The bundler plugins' options: the same for esbuild and Vite (@sentry/bundler-plugins).
  const pluginOptions = {
    org: team.org,
    project: team.projectSlug,
    authToken: team.token,
    url: base,
    telemetry: false,
    // The plugins' release management as they run it by default (create, set commits,
    // finalize) plus a deploy: any failing call throws through `errorHandler`.
    release: {
      name: `shop@${name}`,
      create: true,
      finalize: true,
      inject: false,
      deploy: { env: 'production' },
    },
    sourcemaps: { assets: [join(out, '**')] },
    errorHandler: (err: Error) => {
      throw err
    },
  }
  if (uploader === '@sentry/vite-plugin') {
    // Vite (Rolldown, its own minifier) with the plugin: debug IDs injected and the maps
    // uploaded once the bundle is written. The SDK resolves from the repository's packages.
    await viteBuild({
      root: dir,
      configFile: false,
      logLevel: 'silent',
      resolve: { alias: { [sdk]: join(ROOT, 'node_modules', sdk) } },
      plugins: [sentryVitePlugin(pluginOptions)],
      build: {
        outDir: out,
        minify: true,
        sourcemap: true,
        lib: {
          entry: join(dir, 'entry.js'),
          formats: ['iife'],
          name: 'shop',
          fileName: () => 'app.min.js',
        },
      },
    })
  }
  const plugin = uploader === '@sentry/esbuild-plugin' ? [sentryEsbuildPlugin(pluginOptions)] : []
  if (uploader !== '@sentry/vite-plugin')
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
      nodePaths: [join(ROOT, 'node_modules')],
      plugins: plugin,
    })
  if (uploader === 'sentry-cli 2' || uploader === 'sentry-cli 3') {
    const major = uploader === 'sentry-cli 2' ? 2 : 3
    const env = { url: base, token: team.token }
    await sentryCli(major, ['sourcemaps', 'inject', out], env)
    await sentryCli(
      major,
      ['sourcemaps', 'upload', '--org', team.org, '--project', team.projectSlug, out],
      env,
    )
  }
  await writeFile(
    join(out, 'index.html'),
    '<!doctype html><html><body><script src="app.min.js"></script></body></html>',
  )
  served.set(name, out)
}

interface EventJson {
  event_id: string
  issue_id: number
  exception: { values: { stacktrace: { frames: Record<string, unknown>[] } }[] }
}

/** Opens the page, sends the error through the SDK and returns the stored event. */
async function sendFromBrowser(name: string): Promise<EventJson> {
  const before = new Set((await allEvents()).map((e) => e.event_id))
  const page = await browser.newPage()
  try {
    await page.goto(`${pageBase}/${name}/index.html`)
    // Page-side code as text: the test project has no DOM types.
    await page.waitForFunction("typeof window.__send === 'function'")
    const flushed = await page.evaluate('window.__send()')
    expect(flushed).toBe(true)
  } finally {
    await page.close()
  }
  const fresh = (await allEvents()).filter((e) => !before.has(e.event_id))
  expect(fresh).toHaveLength(1)
  return fresh[0] as EventJson
}

async function allEvents(): Promise<EventJson[]> {
  const issues = (
    await app.inject({ url: `/api/0/projects/${team.projectId}/issues/`, headers: ADMIN })
  ).json<{ id: number }[]>()
  const out: EventJson[] = []
  for (const i of issues) {
    const res = await app.inject({ url: `/api/0/issues/${i.id}/events/`, headers: ADMIN })
    out.push(...res.json<EventJson[]>())
  }
  return out
}

const CASES: [string, string, Uploader][] = [
  ['sdk11-cli3', '@sentry/browser', 'sentry-cli 3'],
  ['sdk10-cli2', 'sentry-browser-10', 'sentry-cli 2'],
  ['sdk11-plugin', '@sentry/browser', '@sentry/esbuild-plugin'],
  ['sdk11-vite', '@sentry/browser', '@sentry/vite-plugin'],
]

describe('a minified browser app', () => {
  const issues: number[] = []
  it.each(CASES)(
    '%s: the issue page shows the original frames',
    async (name, sdk, uploader) => {
      await buildAndUpload(name, sdk, uploader, `salt-${name}`)
      const event = await sendFromBrowser(name)
      const frames = event.exception.values.at(-1)?.stacktrace.frames ?? []
      const top = frames.at(-1)
      expect(top?.['function']).toBe('explodeWithOriginalName')
      expect(top?.['filename']).toBe('app-source.js')
      expect(top?.['lineno']).toBe(7)
      expect(top?.['context_line']).toBe("  throw new Error('checkout failed: ' + reason)")
      expect(frames.at(-2)?.['function']).toBe('middleLayer')
      issues.push(event.issue_id)
      if (uploader.startsWith('@sentry/')) {
        const release = await app.inject({
          url: `/api/0/organizations/${team.org}/releases/shop@${name}/`,
          headers: ADMIN,
        })
        expect(release.statusCode, release.body).toBe(200)
        expect(release.json()).toMatchObject({
          projects: [{ slug: team.projectSlug }],
          dateReleased: expect.any(String),
          deployCount: 1,
          lastDeploy: { environment: 'production' },
        })
      }
      const page = await app.inject({
        url: `/issues/${event.issue_id}?event=${event.event_id}`,
        headers: ADMIN,
      })
      expect(page.statusCode).toBe(200)
      expect(page.body).toContain('<span class="fn">explodeWithOriginalName</span>')
      expect(page.body).toContain('<span>app-source.js</span><span class="muted">:7:')
      expect(page.body).toContain('throw new Error(&#39;checkout failed: &#39; + reason)')
    },
    180_000,
  )

  it('the four builds (other minified names, another bundler) are one issue', () => {
    expect(issues).toHaveLength(4)
    expect(new Set(issues).size).toBe(1)
  })
})
