import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pruneArtifacts } from '../src/artifact-bundles/maintenance.ts'
import { SourceMapResolver } from '../src/ingest/source-maps/resolver.ts'
import { framesOfRun } from './source-maps/stack.ts'
import { bundleApp, type UploadTeam, uploadTeam } from './source-maps/world.ts'
import { artifactBundle, SYSB, zip } from './source-maps/zip.ts'
import { ADMIN, eid, sendItems, testApp } from './support/helpers.ts'

/**
 * The upload surface below the CLI: chunk checks and limits, the assemble states, bad bundles
 * refused with a detail naming the file and nothing stored, release + URL resolution, and the
 * maintenance job's removal of chunks never assembled. SQLite and PostgreSQL.
 */

let app: FastifyInstance
let team: UploadTeam

beforeAll(async () => {
  app = await testApp()
  team = await uploadTeam(app, 'Bundles')
}, 60_000)
afterAll(async () => {
  await app?.close()
})

const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex')
const auth = () => ({ authorization: `Bearer ${team.token}` })

function multipart(parts: { name: string; filename: string; data: Buffer }[]) {
  const boundary = 'chunk-boundary-7'
  const payload = Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"; filename="${p.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
      ),
      p.data,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ])
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` }
}

function postChunks(parts: { name: string; filename: string; data: Buffer }[]) {
  const { payload, contentType } = multipart(parts)
  return app.inject({
    method: 'POST',
    url: `/api/0/organizations/${team.org}/chunk-upload/`,
    headers: { ...auth(), 'content-type': contentType },
    payload,
  })
}

function assemble(body: object) {
  return app.inject({
    method: 'POST',
    url: `/api/0/organizations/${team.org}/artifactbundle/assemble/`,
    headers: auth(),
    payload: body,
  })
}

/** Uploads a bundle as one gzip chunk and assembles it; returns the assemble answer. */
async function uploadBundle(bundle: Buffer, extra: object = {}) {
  const sum = sha1(bundle)
  const up = await postChunks([{ name: 'file_gzip', filename: sum, data: gzipSync(bundle) }])
  expect(up.statusCode, up.body).toBe(200)
  const res = await assemble({
    checksum: sum,
    chunks: [sum],
    projects: [team.projectSlug],
    ...extra,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<{ state: string; missingChunks: string[]; detail?: string }>()
}

describe('chunks', () => {
  it('answers the options with the upload URL relative for sentry-cli, else absolute', async () => {
    const path = `/api/0/organizations/${team.org}/chunk-upload/`
    const urlFor = async (userAgent: string | undefined) =>
      (
        await app.inject({
          url: path,
          headers: {
            ...auth(),
            host: 'uploads.example:8443',
            ...(userAgent === undefined ? {} : { 'user-agent': userAgent }),
          },
        })
      ).json<{ url: string }>().url
    // The Rust CLI joins a relative URL onto its own base (sentry-cli 1.70.1 and later).
    expect(await urlFor('sentry-cli/2.58.6')).toBe(path)
    expect(await urlFor('sentry-cli/3.8.0 (linux-x86_64)')).toBe(path)
    // The JavaScript `sentry` CLI (0.x, run by the bundler plugins) and others fetch it as is.
    expect(await urlFor('sentry-cli/0.45.0 (linux-x64)')).toBe(`http://uploads.example:8443${path}`)
    expect(await urlFor(undefined)).toBe(`http://uploads.example:8443${path}`)
  })

  it('answers the options with the limits', async () => {
    const res = await app.inject({
      url: `/api/0/organizations/${team.org}/chunk-upload/`,
      headers: { ...auth(), 'user-agent': 'sentry-cli/2.58.6' },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      url: `/api/0/organizations/${team.org}/chunk-upload/`,
      chunkSize: 8_388_608,
      chunksPerRequest: 8,
      maxRequestSize: 33_554_432,
      maxFileSize: 67_108_864,
      maxWait: 60,
      hashAlgorithm: 'sha1',
      concurrency: 1,
      compression: ['gzip'],
      accept: ['release_files', 'sources', 'artifact_bundles', 'artifact_bundles_v2'],
    })
  })

  it('verifies each chunk: a wrong sha1 is 400, a chunk over 8 MiB is 413, no multipart 415', async () => {
    const data = Buffer.from('some chunk bytes')
    const wrong = await postChunks([{ name: 'file', filename: 'a'.repeat(40), data }])
    expect(wrong.statusCode).toBe(400)
    expect(wrong.json()).toEqual({
      detail: `chunk ${'a'.repeat(40)}: its bytes have sha1 ${sha1(data)}`,
    })
    const big = Buffer.alloc(8 * 1024 * 1024 + 1)
    const tooBig = await postChunks([
      { name: 'file_gzip', filename: sha1(big), data: gzipSync(big) },
    ])
    expect(tooBig.statusCode).toBe(413)
    expect(tooBig.json()).toEqual({
      detail: `chunk ${sha1(big)}: over 8388608 bytes`,
    })
    const rawTooBig = await postChunks([{ name: 'file', filename: sha1(big), data: big }])
    expect(rawTooBig.statusCode).toBe(413)
    expect(rawTooBig.json()).toEqual({ detail: `chunk ${sha1(big)}: over 8388608 bytes` })
    const json = await app.inject({
      method: 'POST',
      url: `/api/0/organizations/${team.org}/chunk-upload/`,
      headers: auth(),
      payload: { not: 'multipart' },
    })
    expect(json.statusCode).toBe(415)
    expect(json.json()).toEqual({ detail: 'send the chunks as multipart/form-data' })
  })

  it('assemble lists the missing chunks, then joins them; unassembled chunks go after an hour', async () => {
    const a = Buffer.from('first chunk of nothing')
    const b = Buffer.from('second chunk of nothing')
    const whole = sha1(Buffer.concat([a, b]))
    const first = await assemble({
      checksum: whole,
      chunks: [sha1(a), sha1(b)],
      projects: [team.projectSlug],
    })
    expect(first.json()).toEqual({ state: 'not_found', missingChunks: [sha1(a), sha1(b)] })
    await postChunks([{ name: 'file', filename: sha1(a), data: a }])
    const second = await assemble({
      checksum: whole,
      chunks: [sha1(a), sha1(b)],
      projects: [team.projectSlug],
    })
    expect(second.json()).toEqual({ state: 'not_found', missingChunks: [sha1(b)] })
    // The maintenance job removes chunks older than an hour.
    await pruneArtifacts(app.services.store, 0, Date.now() + 3_600_001)
    const third = await assemble({
      checksum: whole,
      chunks: [sha1(a), sha1(b)],
      projects: [team.projectSlug],
    })
    expect(third.json()).toEqual({ state: 'not_found', missingChunks: [sha1(a), sha1(b)] })
    await postChunks([
      { name: 'file', filename: sha1(a), data: a },
      { name: 'file', filename: sha1(b), data: b },
    ])
    const done = await assemble({
      checksum: whole,
      chunks: [sha1(a), sha1(b)],
      projects: [team.projectSlug],
    })
    expect(done.json()).toEqual({
      state: 'error',
      missingChunks: [],
      detail: 'the upload is not an artifact bundle (no SYSB header)',
    })
  })

  it('refuses an assemble without a project, or naming another team’s project', async () => {
    const none = await assemble({ checksum: 'b'.repeat(40), chunks: [] })
    expect(none.statusCode).toBe(400)
    expect(none.json()).toEqual({
      detail: 'name the project the bundle is for (sentry-cli --project / SENTRY_PROJECT)',
    })
    const other = await uploadTeam(app, 'Other Bundles')
    const res = await assemble({
      checksum: 'b'.repeat(40),
      chunks: [],
      projects: [other.projectSlug],
    })
    // Sentry's answer, which sentry-cli prints (a 404 made it say "Release not found").
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ detail: 'One or more projects are invalid' })
  })
})

describe('bad bundles are refused with the file and the reason, and nothing is stored', () => {
  const js = Buffer.from('console.log(1)\n')
  it.each([
    [
      'not a ZIP',
      Buffer.concat([SYSB, Buffer.from('this is not a zip at all')]),
      /^the bundle is not a ZIP archive/,
    ],
    [
      'no manifest',
      artifactBundle(
        { '_/_/app.js': { type: 'minified_source', url: '~/app.js', data: js } },
        { manifest: false },
      ),
      /^the bundle has no manifest\.json$/,
    ],
    [
      'a map that is not JSON',
      artifactBundle({
        '_/_/app.js.map': {
          type: 'source_map',
          url: '~/app.js.map',
          data: Buffer.from('{"version":3,'),
        },
      }),
      /^file _\/_\/app\.js\.map: the source map is not JSON/,
    ],
    [
      'a map without mappings',
      artifactBundle({
        '_/_/app.js.map': {
          type: 'source_map',
          url: '~/app.js.map',
          data: Buffer.from('{"version":3}'),
        },
      }),
      /^file _\/_\/app\.js\.map: the source map has no "mappings" string or "sources" list$/,
    ],
    [
      'a file listed but absent',
      zip(
        [
          {
            name: 'manifest.json',
            data: Buffer.from(
              JSON.stringify({ files: { 'x.js': { type: 'source', url: '~/x.js' } } }),
            ),
          },
        ],
        SYSB,
      ),
      /^file x\.js: listed in manifest\.json but not in the ZIP$/,
    ],
    [
      'a zip bomb',
      zip(
        [
          { name: 'manifest.json', data: Buffer.from('{"files":{}}') },
          { name: 'bomb.bin', data: Buffer.alloc(20 * 1024 * 1024), deflate: true },
        ],
        SYSB,
      ),
      /^file bomb\.bin: compression ratio over 200:1/,
    ],
  ])('%s', async (_what, bundle, detail) => {
    const answer = await uploadBundle(bundle)
    expect(answer.state).toBe('error')
    expect(answer.missingChunks).toEqual([])
    expect(answer.detail).toMatch(detail)
    expect(await app.services.store.findArtifactBundle(team.teamId, sha1(bundle))).toBeUndefined()
    expect(await app.services.store.projectHasArtifacts(team.projectId)).toBe(false)
  })
})

describe('an embedded map that does not parse', () => {
  it('keeps the minified file without a map instead of refusing the upload', async () => {
    const broken = Buffer.from('{"version":3,').toString('base64')
    const js = Buffer.from(
      `console.log(1)\n//# sourceMappingURL=data:application/json;base64,${broken}\n`,
    )
    const bundle = artifactBundle({
      '_/_/broken-inline.js': { type: 'minified_source', url: '~/broken-inline.js', data: js },
    })
    expect(await uploadBundle(bundle)).toEqual({ state: 'ok', missingChunks: [] })
    expect(await app.services.store.findArtifactBundle(team.teamId, sha1(bundle))).toBeDefined()
  })
})

describe('release + URL', () => {
  it('a bundle uploaded with --release resolves frames by URL (the ~/ form), stored once', async () => {
    const { out } = await bundleApp(`import { run } from './app-source.js'\nexport { run }\n`, {
      format: 'iife',
      globalName: 'shop',
      salt: 'release-url',
    })
    const minified = await readFile(join(out, 'app.min.js'))
    const sourceMap = await readFile(join(out, 'app.min.js.map'))
    const bundle = artifactBundle({
      '_/_/static/app.min.js': {
        type: 'minified_source',
        url: '~/static/app.min.js',
        headers: { Sourcemap: 'app.min.js.map' },
        data: minified,
      },
      '_/_/static/app.min.js.map': {
        type: 'source_map',
        url: '~/static/app.min.js.map',
        data: sourceMap,
      },
    })
    expect(await uploadBundle(bundle, { version: 'shop@1.2.3' })).toEqual({
      state: 'ok',
      missingChunks: [],
    })
    // The same bundle again: `ok` at once, the same stored bundle.
    const id = await app.services.store.findArtifactBundle(team.teamId, sha1(bundle))
    expect(
      (
        await assemble({
          checksum: sha1(bundle),
          chunks: [sha1(bundle)],
          projects: [team.projectSlug],
          version: 'shop@1.2.3',
        })
      ).json(),
    ).toEqual({ state: 'ok', missingChunks: [] })
    expect(await app.services.store.findArtifactBundle(team.teamId, sha1(bundle))).toBe(id)

    const url = 'https://shop.example.com/static/app.min.js?v=7'
    const frames = await framesOfRun(join(out, 'app.min.js'), url, 'shop')
    const event = (n: number, release: string) => ({
      event_id: eid(n),
      platform: 'javascript',
      release,
      exception: { values: [{ type: 'Error', value: 'checkout failed', stacktrace: { frames } }] },
    })
    await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
      ['event', event(901, 'shop@1.2.3')],
    ])
    await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
      ['event', event(902, 'shop@9.9.9')],
    ])
    const read = async (n: number) =>
      (
        await app.inject({
          url: `/api/0/projects/${team.projectId}/events/${eid(n)}/`,
          headers: ADMIN,
        })
      ).json<{ exception: { values: { stacktrace: { frames: Record<string, unknown>[] } }[] } }>()
    const top = (await read(901)).exception.values[0]?.stacktrace.frames.at(-1)
    expect(top?.['function']).toBe('explodeWithOriginalName')
    expect(top?.['abs_path']).toBe('https://shop.example.com/app-source.js')
    expect(top?.['data']).toEqual({ symbolicated: true, sourcemap: '~/static/app.min.js.map' })
    // Another release has no bundle: the frame says so.
    const other = (await read(902)).exception.values[0]?.stacktrace.frames.at(-1)
    expect(other?.['data']).toEqual({ sourcemap_error: 'no_release_artifact' })
    // Plain Node code (files on disk, Node's own) is not said to lack a source map.
    const nodeFrames = [
      { abs_path: 'node:internal/process/task_queues', function: 'process', lineno: 95, colno: 5 },
      { abs_path: '/srv/shop/app.mjs', filename: 'app.mjs', function: 'pay', lineno: 23, colno: 9 },
    ]
    await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
      [
        'event',
        {
          event_id: eid(903),
          platform: 'node',
          release: 'shop@9.9.9',
          exception: {
            values: [{ type: 'Error', value: 'declined', stacktrace: { frames: nodeFrames } }],
          },
        },
      ],
    ])
    for (const f of (await read(903)).exception.values[0]?.stacktrace.frames ?? [])
      expect(f['data']).toBeUndefined()
  }, 60_000)
})

describe('release + URL: maps uploaded again for the same release', () => {
  it('a newer bundle of the release takes over its URLs, on this node at once and on every node within 30 s', async () => {
    const { out } = await bundleApp(`import { run } from './app-source.js'\nexport { run }\n`, {
      format: 'iife',
      globalName: 'shop',
      salt: 'reupload',
    })
    const minified = await readFile(join(out, 'app.min.js'))
    const firstMap = await readFile(join(out, 'app.min.js.map'))
    // The second build's map names its source otherwise (as a rebuild after a rename would).
    const json = JSON.parse(firstMap.toString('utf8')) as { sources: string[] }
    json.sources = json.sources.map((s) => s.replace('app-source.js', 'app-source-v2.js'))
    const secondMap = Buffer.from(JSON.stringify(json))
    const bundleOf = (map: Buffer) =>
      artifactBundle({
        '_/_/static/app.min.js': {
          type: 'minified_source',
          url: '~/static/app.min.js',
          headers: { Sourcemap: 'app.min.js.map' },
          data: minified,
        },
        '_/_/static/app.min.js.map': {
          type: 'source_map',
          url: '~/static/app.min.js.map',
          data: map,
        },
      })
    const frames = await framesOfRun(
      join(out, 'app.min.js'),
      'https://shop.example.com/static/app.min.js',
      'shop',
    )
    const event = {
      platform: 'javascript',
      release: 'shop@4.0.0',
      exception: { values: [{ type: 'Error', value: 'checkout failed', stacktrace: { frames } }] },
    }
    const topPath = async (n: number) => {
      await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
        ['event', { ...event, event_id: eid(n) }],
      ])
      const read = await app.inject({
        url: `/api/0/projects/${team.projectId}/events/${eid(n)}/`,
        headers: ADMIN,
      })
      return read
        .json<{ exception: { values: { stacktrace: { frames: { abs_path?: string }[] } }[] } }>()
        .exception.values[0]?.stacktrace.frames.at(-1)?.abs_path
    }
    await uploadBundle(bundleOf(firstMap), { version: 'shop@4.0.0' })
    expect(await topPath(951)).toBe('https://shop.example.com/app-source.js')
    // Uploaded through this node: its cached map for the URL goes at once.
    await uploadBundle(bundleOf(secondMap), { version: 'shop@4.0.0' })
    expect(await topPath(952)).toBe('https://shop.example.com/app-source-v2.js')

    // Another node learns of an upload only from the store: its cached map for the URL is
    // asked again after 30 s. That node's resolver, on the same store: it caches the second
    // map, then a third bundle (the first map again) is uploaded through this node.
    const other = new SourceMapResolver(app.services.store, {
      maxBytes: 64 * 1024 * 1024,
      log: app.log,
    })
    const resolvedPath = async (now: number) => {
      const e = structuredClone({ ...event, event_id: eid(953) })
      await other.resolveEvent(team.projectId, e, now)
      return e.exception.values[0]?.stacktrace.frames.at(-1)?.abs_path
    }
    const t0 = Date.now()
    expect(await resolvedPath(t0)).toBe('https://shop.example.com/app-source-v2.js')
    await uploadBundle(bundleOf(Buffer.concat([firstMap, Buffer.from('\n')])), {
      version: 'shop@4.0.0',
    })
    expect(await topPath(954)).toBe('https://shop.example.com/app-source.js')
    expect(await resolvedPath(t0 + 1_000)).toBe('https://shop.example.com/app-source-v2.js')
    expect(await resolvedPath(t0 + 31_000)).toBe('https://shop.example.com/app-source.js')
  }, 60_000)
})

describe('release + URL: other forms of the same URL', () => {
  /** The app built once, uploaded as `bundle`; returns the top frame of an event of `url`. */
  async function topFrame(
    n: number,
    release: string,
    files: (minified: Buffer, sourceMap: Buffer) => Parameters<typeof artifactBundle>[0],
    url: string,
    platform = 'javascript',
  ) {
    const { out } = await bundleApp(`import { run } from './app-source.js'\nexport { run }\n`, {
      format: 'iife',
      globalName: 'shop',
      salt: `forms-${n}`,
    })
    const minified = await readFile(join(out, 'app.min.js'))
    const sourceMap = await readFile(join(out, 'app.min.js.map'))
    const answer = await uploadBundle(artifactBundle(files(minified, sourceMap)), {
      version: release,
    })
    expect(answer).toEqual({ state: 'ok', missingChunks: [] })
    const frames = await framesOfRun(join(out, 'app.min.js'), url, 'shop')
    await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
      [
        'event',
        {
          event_id: eid(n),
          platform,
          release,
          exception: {
            values: [{ type: 'Error', value: 'checkout failed', stacktrace: { frames } }],
          },
        },
      ],
    ])
    const res = await app.inject({
      url: `/api/0/projects/${team.projectId}/events/${eid(n)}/`,
      headers: ADMIN,
    })
    return res
      .json<{ exception: { values: { stacktrace: { frames: Record<string, unknown>[] } }[] } }>()
      .exception.values[0]?.stacktrace.frames.at(-1)
  }

  /** The minified file with its own last comment naming the map by an absolute URL. */
  const withAbsoluteComment = (minified: Buffer) =>
    Buffer.from(
      `${minified.toString('utf8').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '')}\n//# sourceMappingURL=https://cdn.example.com/maps/app.min.js.map\n`,
    )

  // `//# sourceMappingURL=https://cdn.example/maps/app.min.js.map`: the CLI uploads the map it
  // found on disk as `~/maps/app.min.js.map`, and keeps the URL in the `Sourcemap` header, or
  // (when it could not resolve it) sends no header and the file's own comment says it.
  it.each([
    ['in the Sourcemap header', 911, 'header'],
    ["only in the file's own comment", 912, 'comment'],
  ] as const)(
    'an absolute sourceMappingURL %s finds the map the CLI uploaded as ~/path',
    async (_where, n, how) => {
      const top = await topFrame(
        n,
        `shop@abs-${how}`,
        (minified, sourceMap) => ({
          '_/_/assets/app.min.js': {
            type: 'minified_source',
            url: '~/assets/app.min.js',
            ...(how === 'header'
              ? {
                  headers: { Sourcemap: 'https://cdn.example.com/maps/app.min.js.map?v=3' },
                  data: minified,
                }
              : { data: withAbsoluteComment(minified) }),
          },
          '_/_/maps/app.min.js.map': {
            type: 'source_map',
            url: '~/maps/app.min.js.map',
            data: sourceMap,
          },
        }),
        'https://shop.example.com/assets/app.min.js',
      )
      expect(top?.['function']).toBe('explodeWithOriginalName')
      expect(top?.['data']).toEqual({ symbolicated: true, sourcemap: '~/maps/app.min.js.map' })
    },
    60_000,
  )

  it.each([
    ['~/srv/shop', '/srv/shop/app.min.js', 921],
    ['file:///srv/shop2', '/srv/shop2/app.min.js', 922],
    ['/srv/shop3', 'file:///srv/shop3/app.min.js', 923],
  ])(
    'a Node file on disk is found uploaded with --url-prefix %s',
    async (prefix, path, n) => {
      const top = await topFrame(
        n,
        `node-${n}`,
        (minified, sourceMap) => ({
          '_/_/app.min.js': {
            type: 'minified_source',
            url: `${prefix}/app.min.js`,
            headers: { Sourcemap: 'app.min.js.map' },
            data: minified,
          },
          '_/_/app.min.js.map': {
            type: 'source_map',
            url: `${prefix}/app.min.js.map`,
            data: sourceMap,
          },
        }),
        path,
        'node',
      )
      expect(top?.['function']).toBe('explodeWithOriginalName')
      expect(top?.['data']).toEqual({ symbolicated: true, sourcemap: `${prefix}/app.min.js.map` })
    },
    60_000,
  )
})

describe('a Turbopack server chunk (Next.js): an escaped sourceMappingURL, a map without an ID', () => {
  // What sentry-cli uploaded from `.next/server/chunks/ssr/` of a `next build --turbopack`: the
  // chunk has the debug ID the CLI injected and names its map `%5Broot-of-the-server%5D__….map`
  // in the Sourcemap header; the CLI did not match that escaped name to the map it uploaded, so
  // the map has no debug ID. The SDK reports the chunk as `app:///_next/server/chunks/ssr/…`.
  it.each([
    ['an escaped name', '%5Broot-of-the-server%5D__0a1b2c3d._.js.map', 931],
    ['a name as written', '[root-of-the-server]__0a1b2c3d._.js.map', 932],
  ])(
    'a frame with a debug ID finds the map its chunk names by %s',
    async (_how, reference, n) => {
      const { out } = await bundleApp(`import { run } from './app-source.js'\nexport { run }\n`, {
        format: 'iife',
        globalName: 'shop',
        salt: `turbopack-${n}`,
      })
      const debugId = `0ca5dac8-396b-5519-a286-a835182a4${String(n).padStart(3, '0')}`
      const minified = await readFile(join(out, 'app.min.js'))
      const sourceMap = await readFile(join(out, 'app.min.js.map'))
      const answer = await uploadBundle(
        artifactBundle({
          '_/_/chunks/ssr/a.js': {
            type: 'minified_source',
            url: '~/chunks/ssr/[root-of-the-server]__0a1b2c3d._.js',
            headers: { 'debug-id': debugId, Sourcemap: reference },
            data: minified,
          },
          '_/_/chunks/ssr/a.js.map': {
            type: 'source_map',
            url: '~/chunks/ssr/[root-of-the-server]__0a1b2c3d._.js.map',
            data: sourceMap,
          },
        }),
      )
      expect(answer).toEqual({ state: 'ok', missingChunks: [] })
      const url = 'app:///_next/server/chunks/ssr/[root-of-the-server]__0a1b2c3d._.js'
      const frames = await framesOfRun(join(out, 'app.min.js'), url, 'shop')
      expect(frames.length).toBeGreaterThan(0)
      await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
        [
          'event',
          {
            event_id: eid(n),
            platform: 'node',
            debug_meta: { images: [{ type: 'sourcemap', code_file: url, debug_id: debugId }] },
            exception: {
              values: [{ type: 'Error', value: 'render failed', stacktrace: { frames } }],
            },
          },
        ],
      ])
      const res = await app.inject({
        url: `/api/0/projects/${team.projectId}/events/${eid(n)}/`,
        headers: ADMIN,
      })
      const top = res
        .json<{ exception: { values: { stacktrace: { frames: Record<string, unknown>[] } }[] } }>()
        .exception.values[0]?.stacktrace.frames.at(-1)
      expect(top?.['function']).toBe('explodeWithOriginalName')
      expect(top?.['data']).toEqual({
        symbolicated: true,
        sourcemap: '~/chunks/ssr/[root-of-the-server]__0a1b2c3d._.js.map',
      })
    },
    60_000,
  )
})

describe('a Next.js server chunk built twice', () => {
  /** Uploads a build of the app as chunk `hash`, sends its error as @sentry/nextjs does. */
  async function chunkEvent(n: number, hash: string) {
    const { out } = await bundleApp(`import { run } from './app-source.js'\nexport { run }\n`, {
      format: 'iife',
      globalName: 'shop',
      salt: `chunk-${hash}`,
    })
    const debugId = `4aa269f5-0000-4000-8000-00000000${String(n).padStart(4, '0')}`
    const name = `[root-of-the-server]__${hash}._.js`
    const answer = await uploadBundle(
      artifactBundle({
        '_/_/c.js': {
          type: 'minified_source',
          url: `~/chunks/ssr/${name}`,
          headers: { 'debug-id': debugId, Sourcemap: `${name}.map` },
          data: await readFile(join(out, 'app.min.js')),
        },
        '_/_/c.js.map': {
          type: 'source_map',
          url: `~/chunks/ssr/${name}.map`,
          headers: { 'debug-id': debugId },
          data: await readFile(join(out, 'app.min.js.map')),
        },
      }),
    )
    expect(answer).toEqual({ state: 'ok', missingChunks: [] })
    const url = `app:///_next/server/chunks/ssr/${name}`
    // The Node SDK names each frame's module after its file: the chunk, hash and all.
    const frames = (await framesOfRun(join(out, 'app.min.js'), url, 'shop')).map((f) => ({
      ...f,
      module: name.slice(0, -3),
      in_app: true,
    }))
    await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
      [
        'event',
        {
          event_id: eid(n),
          platform: 'node',
          debug_meta: { images: [{ type: 'sourcemap', code_file: url, debug_id: debugId }] },
          exception: {
            values: [{ type: 'Error', value: 'render failed', stacktrace: { frames } }],
          },
        },
      ],
    ])
    const res = await app.inject({
      url: `/api/0/projects/${team.projectId}/events/${eid(n)}/`,
      headers: ADMIN,
    })
    return res.json<{
      issue_id: number
      exception: {
        values: {
          stacktrace: { frames: Record<string, unknown>[] }
          raw_stacktrace: { frames: Record<string, unknown>[] }
        }[]
      }
    }>()
  }

  it('groups as one issue: the mapped frame drops the module the SDK took from the chunk name', async () => {
    const first = await chunkEvent(941, '1111aaaa')
    const second = await chunkEvent(942, '2222bbbb')
    expect(second.issue_id).toBe(first.issue_id)
    const top = first.exception.values[0]?.stacktrace.frames.at(-1)
    expect(top?.['function']).toBe('explodeWithOriginalName')
    expect(top?.['module']).toBeUndefined()
    expect(first.exception.values[0]?.raw_stacktrace.frames.at(-1)?.['module']).toBe(
      '[root-of-the-server]__1111aaaa._',
    )
  }, 60_000)
})

it('serves a stored event at /projects/{org}/{project}/events/{id}/json/ (sourcemaps explain)', async () => {
  const url = (org: string, project: string, id: string) =>
    `/api/0/projects/${org}/${project}/events/${id}/json/`
  const res = await app.inject({ url: url(team.org, team.projectSlug, eid(901)), headers: auth() })
  expect(res.statusCode, res.body).toBe(200)
  const body = res.json<{ event_id: string; release: string }>()
  expect(body.event_id).toBe(eid(901))
  expect(body.release).toBe('shop@1.2.3')
  const missing = await app.inject({
    url: url(team.org, team.projectSlug, eid(999)),
    headers: auth(),
  })
  expect(missing.statusCode).toBe(404)
  expect(
    (await app.inject({ url: url(team.org, 'nope', eid(901)), headers: auth() })).statusCode,
  ).toBe(404)
  // Another team's token does not see the team's events.
  const other = await uploadTeam(app, 'Event JSON Other')
  const foreign = await app.inject({
    url: url(team.org, team.projectSlug, eid(901)),
    headers: { authorization: `Bearer ${other.token}` },
  })
  expect(foreign.statusCode).toBe(404)
})
