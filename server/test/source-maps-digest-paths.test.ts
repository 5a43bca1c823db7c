import { createHash, randomUUID } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Config } from '../src/config.ts'
import { framesOfRun, type V8Frame } from './source-maps/stack.ts'
import { bundleApp, type UploadTeam, uploadTeam } from './source-maps/world.ts'
import { artifactBundle } from './source-maps/zip.ts'
import { ADMIN, eid, sendItems, testApp } from './support/helpers.ts'

/**
 * Source-map resolution on each path an event's digest takes: on the store's write (the
 * default; on a SQLite file that is its writer thread, which resolves with its own connection
 * and cache), and on digest threads (`DIGEST_THREADS`), where the main thread resolves first.
 * On each: an event before its upload keeps its minified frames with the reason, and the
 * first event after the upload is resolved (the cached "no map" answer is forgotten on the
 * thread that resolves), and a release file deleted after an event used it resolves no later
 * event (the cached map is forgotten there too). SQLite and PostgreSQL.
 */

let dir: string
let built: { minified: Buffer; map: Buffer; file: string }

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'source-map-paths-'))
  const { out } = await bundleApp(`import { run } from './app-source.js'\nexport { run }\n`, {
    format: 'iife',
    globalName: 'shop',
    salt: 'digest-paths',
  })
  const file = join(out, 'app.min.js')
  built = { minified: await readFile(file), map: await readFile(`${file}.map`), file }
}, 60_000)
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex')

/** Uploads the built app as one bundle carrying `debugId`, through chunk-upload and assemble. */
async function upload(app: FastifyInstance, team: UploadTeam, debugId: string): Promise<void> {
  const bundle = artifactBundle({
    '_/_/app.min.js': {
      type: 'minified_source',
      url: '~/app.min.js',
      headers: { 'debug-id': debugId, Sourcemap: 'app.min.js.map' },
      data: built.minified,
    },
    '_/_/app.min.js.map': {
      type: 'source_map',
      url: '~/app.min.js.map',
      headers: { 'debug-id': debugId },
      data: built.map,
    },
  })
  const sum = sha1(bundle)
  const boundary = 'paths-boundary'
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file_gzip"; filename="${sum}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    gzipSync(bundle),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  const auth = { authorization: `Bearer ${team.token}` }
  const chunk = await app.inject({
    method: 'POST',
    url: `/api/0/organizations/${team.org}/chunk-upload/`,
    headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
    payload: body,
  })
  expect(chunk.statusCode, chunk.body).toBe(200)
  const assembled = await app.inject({
    method: 'POST',
    url: `/api/0/organizations/${team.org}/artifactbundle/assemble/`,
    headers: auth,
    payload: { checksum: sum, chunks: [sum], projects: [team.projectSlug] },
  })
  expect(assembled.json()).toEqual({ state: 'ok', missingChunks: [] })
}

type Frame = Record<string, unknown> & { data?: Record<string, unknown> }

async function topFrame(app: FastifyInstance, projectId: number, n: number): Promise<Frame> {
  const res = await app.inject({
    url: `/api/0/projects/${projectId}/events/${eid(n)}/`,
    headers: ADMIN,
  })
  expect(res.statusCode, res.body).toBe(200)
  const event = res.json<{ exception: { values: { stacktrace: { frames: Frame[] } }[] } }>()
  const top = event.exception.values[0]?.stacktrace.frames.at(-1)
  if (top === undefined) throw new Error(`event ${n} has no frames`)
  return top
}

const url = 'https://shop.example.com/assets/app.min.js'

async function send(
  app: FastifyInstance,
  team: UploadTeam,
  n: number,
  frames: V8Frame[],
  id: string,
) {
  const event = {
    event_id: eid(n),
    platform: 'javascript',
    exception: { values: [{ type: 'Error', value: 'checkout failed', stacktrace: { frames } }] },
    debug_meta: { images: [{ type: 'sourcemap', code_file: url, debug_id: id }] },
  }
  const res = await sendItems(app, { id: team.projectId, key: team.dsnKey }, [['event', event]])
  expect(res.statusCode, res.body).toBe(200)
}

const paths: { name: string; config: () => Partial<Config> }[] = [
  { name: 'the digest on the write (in-memory store)', config: () => ({}) },
  {
    name: 'the digest on the write (a database file: SQLite’s writer thread)',
    config: () => ({ databasePath: join(dir, 'writer.db') }),
  },
  { name: 'digest threads (the main thread resolves)', config: () => ({ digestThreads: 1 }) },
]

describe.each(paths)('$name', ({ name, config }) => {
  let app: FastifyInstance
  let team: UploadTeam

  beforeAll(async () => {
    app = await testApp(config())
    team = await uploadTeam(app, `Paths ${paths.findIndex((p) => p.name === name)}`)
  }, 60_000)
  afterAll(async () => {
    await app?.close()
  })

  it('an event before the upload says why; the first event after it is resolved', async () => {
    const frames = await framesOfRun(built.file, url, 'shop')
    const debugId = randomUUID()
    // The project needs a bundle of its own for resolution to look at its events at all.
    await upload(app, team, randomUUID())
    await send(app, team, 1, frames, debugId)
    const before = await topFrame(app, team.projectId, 1)
    expect(before['function']).toBe(frames.at(-1)?.function)
    expect(before['lineno']).toBe(frames.at(-1)?.lineno)
    expect(before.data).toEqual({ sourcemap_error: 'missing_source_map', debug_id: debugId })

    await upload(app, team, debugId)
    await send(app, team, 2, frames, debugId)
    const after = await topFrame(app, team.projectId, 2)
    expect(after['function']).toBe('explodeWithOriginalName')
    expect(after['filename']).toBe('app-source.js')
    expect(after['lineno']).toBe(7)
    expect(after['context_line']).toBe("  throw new Error('checkout failed: ' + reason)")
    expect(after.data).toEqual({ symbolicated: true, sourcemap: '~/app.min.js.map' })
  }, 60_000)

  it('a release file deleted is no longer used, though the resolving thread had cached its map', async () => {
    const frames = await framesOfRun(built.file, url, 'shop')
    const auth = { authorization: `Bearer ${team.token}` }
    const version = 'paths@1'
    const made = await app.inject({
      method: 'POST',
      url: `/api/0/organizations/${team.org}/releases/`,
      headers: auth,
      payload: { version, projects: [team.projectSlug] },
    })
    expect(made.statusCode, made.body).toBe(201)
    const files = `/api/0/projects/${team.org}/${team.projectSlug}/releases/${version}/files/`
    const ids: string[] = []
    for (const [name, data, header] of [
      ['~/assets/app.min.js', built.minified, 'Sourcemap: app.min.js.map'],
      ['~/assets/app.min.js.map', built.map, undefined],
    ] as const) {
      const boundary = 'release-file-paths'
      const part = (field: string, value: string | Buffer, filename?: string) =>
        Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${field}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n\r\n`,
          ),
          Buffer.isBuffer(value) ? value : Buffer.from(value),
          Buffer.from('\r\n'),
        ])
      const payload = Buffer.concat([
        part('file', data, 'f'),
        part('name', name),
        ...(header === undefined ? [] : [part('header', header)]),
        Buffer.from(`--${boundary}--\r\n`),
      ])
      const res = await app.inject({
        method: 'POST',
        url: files,
        headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` },
        payload,
      })
      expect(res.statusCode, res.body).toBe(201)
      ids.push(res.json<{ id: string }>().id)
    }
    const sendRelease = async (n: number) => {
      const event = {
        event_id: eid(n),
        platform: 'javascript',
        release: version,
        exception: {
          values: [{ type: 'Error', value: 'checkout failed', stacktrace: { frames } }],
        },
      }
      const res = await sendItems(app, { id: team.projectId, key: team.dsnKey }, [['event', event]])
      expect(res.statusCode, res.body).toBe(200)
    }
    await sendRelease(3)
    expect((await topFrame(app, team.projectId, 3))['function']).toBe('explodeWithOriginalName')

    const del = await app.inject({ method: 'DELETE', url: `${files}${ids[1]}/`, headers: auth })
    expect(del.statusCode, del.body).toBe(204)
    await sendRelease(4)
    const after = await topFrame(app, team.projectId, 4)
    expect(after['function']).toBe(frames.at(-1)?.function)
    expect(after.data).toEqual({ sourcemap_error: 'no_release_artifact' })
  }, 60_000)
})
