import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { framesOfRun, type V8Frame } from './source-maps/stack.ts'
import {
  bundleApp,
  injectedDebugId,
  listDir,
  sentryCli,
  type UploadTeam,
  uploadTeam,
} from './source-maps/world.ts'
import { ADMIN, eid, sendItems, testApp } from './support/helpers.ts'

/**
 * Stock sentry-cli 2.58 and 3.8 (from npm) upload esbuild output with injected debug IDs to the
 * server; events whose frames come from running that output resolve to the original function
 * names, files, lines and context before grouping. Runs on SQLite and (integration-postgres) on
 * PostgreSQL.
 */

let app: FastifyInstance
let base: string
let alpha: UploadTeam
let bravo: UploadTeam
/** The upload calls the CLIs made (method, path, status). */
const calls: string[] = []

beforeAll(async () => {
  app = await testApp()
  app.addHook('onResponse', async (req, reply) => {
    if (req.url.includes('/organizations/')) {
      calls.push(
        `${req.method} ${req.url.replace(/\/organizations\/[^/]+/, '/organizations/{org}')} ${reply.statusCode}`,
      )
    }
  })
  alpha = await uploadTeam(app, 'Alpha Shop')
  bravo = await uploadTeam(app, 'Bravo Shop')
  base = await app.listen({ port: 0, host: '127.0.0.1' })
}, 60_000)
afterAll(async () => {
  await app?.close()
})

const ENTRY = `import { run } from './app-source.js'\nexport { run }\n`

/** Builds the app (minified names depend on `salt`), injects debug IDs with the given CLI. */
async function builtApp(
  major: 2 | 3,
  salt: string,
  token: string,
  sourcemap: 'external' | 'inline' = 'external',
) {
  const { out } = await bundleApp(ENTRY, { format: 'iife', globalName: 'shop', salt, sourcemap })
  await sentryCli(major, ['sourcemaps', 'inject', out], { url: base, token })
  const file = join(out, 'app.min.js')
  return { out, file, debugId: await injectedDebugId(file) }
}

function errorEvent(n: number, frames: V8Frame[], debugId: string, url: string, release?: string) {
  return {
    event_id: eid(n),
    platform: 'javascript',
    level: 'error',
    ...(release === undefined ? {} : { release }),
    exception: {
      values: [{ type: 'Error', value: 'checkout failed: x...', stacktrace: { frames } }],
    },
    debug_meta: { images: [{ type: 'sourcemap', code_file: url, debug_id: debugId }] },
  }
}

type Frame = Record<string, unknown> & { data?: Record<string, unknown> }
interface StoredEvent {
  issue_id: number
  exception: { values: { stacktrace: { frames: Frame[] }; raw_stacktrace?: { frames: Frame[] } }[] }
}

async function storedEvent(projectId: number, id: string): Promise<StoredEvent> {
  const res = await app.inject({
    url: `/api/0/projects/${projectId}/events/${id}/`,
    headers: ADMIN,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<StoredEvent>()
}

async function send(team: UploadTeam, event: object) {
  const res = await sendItems(app, { id: team.projectId, key: team.dsnKey }, [['event', event]])
  expect(res.statusCode, res.body).toBe(200)
}

const upload = (
  major: 2 | 3,
  team: UploadTeam,
  out: string,
  token = team.token,
  extra: string[] = [],
) =>
  sentryCli(
    major,
    ['sourcemaps', 'upload', '--org', team.org, '--project', team.projectSlug, ...extra, out],
    { url: base, token },
  )

describe.each([2, 3] as const)('sentry-cli %i', (major) => {
  it('uploads a bundle; an event from the minified build shows the original frames', async () => {
    const url = `http://localhost:5173/v${major}/assets/app.min.js`
    const built = await builtApp(major, `build-${major}-a`, alpha.token)
    calls.length = 0
    const log = await upload(major, alpha, built.out)
    expect(log).toContain(built.debugId)
    // Both versions ask assemble first, upload the missing chunk, then assemble again.
    const chunkPost = 'POST /api/0/organizations/{org}/chunk-upload/ 200'
    const assemble = 'POST /api/0/organizations/{org}/artifactbundle/assemble/ 200'
    expect(calls).toEqual([
      'GET /api/0/organizations/{org}/chunk-upload/ 200',
      assemble,
      chunkPost,
      assemble,
    ])
    // The map comes with its minified file, whose function scopes name the frames.
    const map = await app.services.store.sourceMapByDebugId(alpha.projectId, built.debugId)
    expect(map?.minified?.length).toBeGreaterThan(0)
    const frames = await framesOfRun(built.file, url, 'shop')
    // The minifier renamed the functions: the raw frames do not carry the original names.
    expect(frames.map((f) => f.function).join(' ')).not.toContain('explodeWithOriginalName')
    expect(frames.length).toBeGreaterThanOrEqual(3)

    // Local variables as an SDK with them on sends (@sentry/node `includeLocalVariables`).
    const withVars = frames.map((f) => ({
      ...f,
      vars: { password: 'hunter2-frame', card: '4111 1111 1111 1111' },
    }))
    await send(alpha, errorEvent(major * 100 + 1, withVars, built.debugId, url))
    const stored = await storedEvent(alpha.projectId, eid(major * 100 + 1))
    // Scrubbed in the mapped frames and in the frames kept as they came alike.
    expect(JSON.stringify(stored)).not.toContain('hunter2-frame')
    expect(JSON.stringify(stored)).not.toContain('4111 1111')
    const value = stored.exception.values[0]
    const top = value?.stacktrace.frames.at(-1)
    expect(top?.['function']).toBe('explodeWithOriginalName')
    expect(top?.['filename']).toBe('app-source.js')
    expect(top?.['lineno']).toBe(7)
    expect(top?.['context_line']).toBe("  throw new Error('checkout failed: ' + reason)")
    expect(top?.['pre_context']).toEqual([
      `export const build = ${JSON.stringify(`build-${major}-a`)}`,
      'let counter = 0',
      '',
      'function explodeWithOriginalName(reason) {',
      '  counter += 1',
    ])
    expect(top?.['post_context']).toEqual([
      '}',
      '',
      'function middleLayer(reason) {',
      "  const padded = reason.padEnd(4, '.')",
      '  explodeWithOriginalName(padded)',
    ])
    expect(top?.data).toEqual({ symbolicated: true, sourcemap: '~/app.min.js.map' })
    const caller = value?.stacktrace.frames.at(-2)
    expect(caller?.['function']).toBe('middleLayer')
    expect(caller?.['lineno']).toBe(12)
    expect(caller?.['context_line']).toBe('  explodeWithOriginalName(padded)')
    // The frames as they came are kept.
    expect(value?.raw_stacktrace?.frames.map((f) => f['lineno'])).toEqual(
      frames.map((f) => f.lineno),
    )
    expect(value?.raw_stacktrace?.frames.at(-1)?.['function']).toBe(frames.at(-1)?.function)

    // Uploading the same bundle again is answered `ok` at once: no chunk is sent.
    calls.length = 0
    const again = await upload(major, alpha, built.out)
    expect(again).toContain(built.debugId)
    // (The CLI asks assemble for missing chunks, then polls it once more.)
    expect(calls).toEqual(['GET /api/0/organizations/{org}/chunk-upload/ 200', assemble, assemble])
  }, 120_000)
})

describe.each([2, 3] as const)('an embedded (inline) source map, sentry-cli %i', (major) => {
  it('resolves by debug ID and by release + URL', async () => {
    const built = await builtApp(major, `inline-${major}`, alpha.token, 'inline')
    expect(await listDir(built.out)).toEqual(['app.min.js'])
    const log = await upload(major, alpha, built.out)
    expect(log).toContain('embedded sourcemap')
    const url = `http://localhost:5173/inline${major}/app.min.js`
    const frames = await framesOfRun(built.file, url, 'shop')
    await send(alpha, errorEvent(major * 100 + 81, frames, built.debugId, url))
    const byId = (await storedEvent(alpha.projectId, eid(major * 100 + 81))).exception.values[0]
    const top = byId?.stacktrace.frames.at(-1)
    expect(top?.['function']).toBe('explodeWithOriginalName')
    expect(top?.['filename']).toBe('app-source.js')
    expect(top?.['context_line']).toBe("  throw new Error('checkout failed: ' + reason)")
    expect(top?.data).toEqual({ symbolicated: true, sourcemap: '~/app.min.js' })

    // The same file uploaded for a release: an event without debug IDs finds it by its URL.
    const release = `inline-${major}@1`
    await upload(major, alpha, built.out, alpha.token, [
      '--release',
      release,
      '--url-prefix',
      `~/inline${major}`,
    ])
    const plain = { ...errorEvent(major * 100 + 82, frames, built.debugId, url, release) }
    plain.debug_meta = { images: [] }
    await send(alpha, plain)
    const byUrl = (await storedEvent(alpha.projectId, eid(major * 100 + 82))).exception.values[0]
    expect(byUrl?.stacktrace.frames.at(-1)?.['function']).toBe('explodeWithOriginalName')
    expect(byUrl?.stacktrace.frames.at(-1)?.data).toEqual({
      symbolicated: true,
      sourcemap: `~/inline${major}/app.min.js`,
    })
  }, 120_000)
})

it('the setup page shows the upload commands for the project', async () => {
  const page = await app.inject({ url: `/projects/${alpha.projectId}/setup`, headers: ADMIN })
  expect(page.statusCode).toBe(200)
  expect(page.body).toContain(`export SENTRY_ORG=${alpha.org}`)
  expect(page.body).toContain(`export SENTRY_PROJECT=${alpha.projectSlug}`)
  expect(page.body).toContain('npx @sentry/cli sourcemaps upload ./dist')
})

describe('grouping and isolation', () => {
  it('two builds of the same source (other minified names) group into one issue', async () => {
    const url1 = 'http://localhost:5173/one/app.min.js'
    const url2 = 'http://localhost:5173/two/app.min.js'
    const one = await builtApp(3, 'grouping-one', alpha.token)
    const two = await builtApp(3, 'grouping-two-longer', alpha.token)
    await upload(3, alpha, one.out)
    await upload(2, alpha, two.out)
    const f1 = await framesOfRun(one.file, url1, 'shop')
    const f2 = await framesOfRun(two.file, url2, 'shop')
    expect(f1.map((f) => `${f.function}@${f.lineno}:${f.colno}`)).not.toEqual(
      f2.map((f) => `${f.function}@${f.lineno}:${f.colno}`),
    )
    expect(f1.at(-1)?.function).not.toBe(f2.at(-1)?.function)
    await send(alpha, errorEvent(501, f1, one.debugId, url1))
    await send(alpha, errorEvent(502, f2, two.debugId, url2))
    const e1 = await storedEvent(alpha.projectId, eid(501))
    const e2 = await storedEvent(alpha.projectId, eid(502))
    expect(e1.exception.values[0]?.stacktrace.frames.at(-1)?.['function']).toBe(
      'explodeWithOriginalName',
    )
    expect(e2.issue_id).toBe(e1.issue_id)
  }, 120_000)

  it("a debug ID of project A's bundle does not resolve in project B; B's token cannot upload to A", async () => {
    const url = 'http://localhost:5173/iso/app.min.js'
    const built = await builtApp(3, 'isolation', alpha.token)
    await upload(3, alpha, built.out)
    const frames = await framesOfRun(built.file, url, 'shop')
    await send(bravo, errorEvent(601, frames, built.debugId, url))
    const stored = await storedEvent(bravo.projectId, eid(601))
    const top = stored.exception.values[0]?.stacktrace.frames.at(-1)
    expect(top?.['function']).toBe(frames.at(-1)?.function)
    // Project B has no bundle at all: its events are not even looked at on ingest…
    expect(top?.data).toBeUndefined()
    // …and its issue page says why the frames are minified.
    const page = await app.inject({ url: `/issues/${stored.issue_id}`, headers: ADMIN })
    expect(page.body).toContain('data-sourcemap-error="missing_source_map"')
    expect(page.body).toContain(built.debugId)
    expect(page.body).not.toContain('explodeWithOriginalName')
    // With a bundle of its own, B's events are resolved, but A's debug ID still finds nothing.
    const own = await builtApp(3, 'isolation-bravo', bravo.token)
    await upload(3, bravo, own.out)
    await send(bravo, errorEvent(602, frames, built.debugId, url))
    const again = await storedEvent(bravo.projectId, eid(602))
    expect(again.exception.values[0]?.stacktrace.frames.at(-1)?.data).toEqual({
      sourcemap_error: 'missing_source_map',
      debug_id: built.debugId,
    })

    // Team B's admin token, team A's org and project: the org is not found for it.
    await expect(upload(3, alpha, built.out, bravo.token)).rejects.toThrow(/404|not found/i)
    const options = await fetch(`${base}/api/0/organizations/${alpha.org}/chunk-upload/`, {
      headers: { authorization: `Bearer ${bravo.token}` },
    })
    expect(options.status).toBe(404)
    expect(await options.json()).toEqual({ detail: 'no such organization' })
    // Team B's org cannot name team A's project either.
    const assemble = await fetch(
      `${base}/api/0/organizations/${bravo.org}/artifactbundle/assemble/`,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${bravo.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          checksum: 'a'.repeat(40),
          chunks: [],
          projects: [alpha.projectSlug],
        }),
      },
    )
    expect(assemble.status).toBe(400)
    expect(await assemble.json()).toEqual({ detail: 'One or more projects are invalid' })
  }, 120_000)

  it('an event sent before its upload is shown resolved once the bundle arrives', async () => {
    const url = 'http://localhost:5173/late/app.min.js'
    const built = await builtApp(3, 'late-upload', alpha.token)
    const frames = await framesOfRun(built.file, url, 'shop')
    await send(alpha, errorEvent(701, frames, built.debugId, url))
    const before = await storedEvent(alpha.projectId, eid(701))
    expect(before.exception.values[0]?.stacktrace.frames.at(-1)?.data).toEqual({
      sourcemap_error: 'missing_source_map',
      debug_id: built.debugId,
    })
    const page0 = await app.inject({ url: `/issues/${before.issue_id}`, headers: ADMIN })
    expect(page0.statusCode).toBe(200)
    expect(page0.body).toContain('data-sourcemap-error="missing_source_map"')
    expect(page0.body).not.toContain('explodeWithOriginalName')

    await upload(3, alpha, built.out)
    const page = await app.inject({ url: `/issues/${before.issue_id}`, headers: ADMIN })
    expect(page.body).toContain('explodeWithOriginalName')
    expect(page.body).toContain('app-source.js')
    expect(page.body).toContain('throw new Error(&#39;checkout failed: &#39; + reason)')
    expect(page.body).not.toContain('data-sourcemap-error="missing_source_map"')
  }, 120_000)
})
