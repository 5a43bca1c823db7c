import { appendFile, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pruneArtifacts } from '../src/artifact-bundles/maintenance.ts'
import { framesOfRun } from './source-maps/stack.ts'
import { bundleApp, sentryCli, type UploadTeam, uploadTeam } from './source-maps/world.ts'
import { ADMIN, eid, sendItems, testApp } from './support/helpers.ts'

/**
 * The legacy release-file API of sentry-cli 2.x (`releases files <v> upload|list|delete`):
 * uploads through HTTP in both path forms, the 409 of a taken name, the list and its pages,
 * deletes, the refusals, and frames of an event of the release resolved from a `.js` and its
 * `.map` uploaded as two files; then the same with the stock sentry-cli 2.58 from npm. SQLite
 * and (integration-postgres) PostgreSQL.
 */

let app: FastifyInstance
let base: string
let team: UploadTeam
let other: UploadTeam

const VERSION = 'shop@2.0.0'

/** The upload calls the CLI made (method, path without the query, status). */
const calls: string[] = []

beforeAll(async () => {
  app = await testApp()
  app.addHook('onResponse', async (req, reply) => {
    calls.push(`${req.method} ${req.url.split('?')[0]} ${reply.statusCode}`)
  })
  team = await uploadTeam(app, 'Release Files')
  other = await uploadTeam(app, 'Release Files Other')
  for (const t of [team, other]) {
    const res = await app.inject({
      method: 'POST',
      url: `/api/0/organizations/${t.org}/releases/`,
      headers: { authorization: `Bearer ${t.token}` },
      payload: { version: VERSION, projects: [t.projectSlug] },
    })
    expect(res.statusCode, res.body).toBe(201)
  }
  base = await app.listen({ port: 0, host: '127.0.0.1' })
}, 60_000)
afterAll(async () => {
  await app?.close()
})

const auth = (t: UploadTeam = team) => ({ authorization: `Bearer ${t.token}` })

type Part = { name: string; value: string | Buffer; filename?: string }

function form(parts: Part[]) {
  const boundary = 'release-files-boundary'
  const payload = Buffer.concat([
    ...parts.flatMap((p) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${p.name}"${
          p.filename === undefined ? '' : `; filename="${p.filename}"`
        }\r\n\r\n`,
      ),
      Buffer.isBuffer(p.value) ? p.value : Buffer.from(p.value),
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ])
  return { payload, contentType: `multipart/form-data; boundary=${boundary}` }
}

const filesUrl = (where: 'org' | 'project', t: UploadTeam = team, version = VERSION) =>
  where === 'org'
    ? `/api/0/organizations/${t.org}/releases/${encodeURIComponent(version)}/files/`
    : `/api/0/projects/${t.org}/${t.projectSlug}/releases/${encodeURIComponent(version)}/files/`

function upload(
  url: string,
  file: { name: string; data: string | Buffer; dist?: string; headers?: string[] },
  headers = auth(),
) {
  const parts: Part[] = [
    { name: 'file', value: file.data, filename: file.name.split('/').at(-1) ?? 'f' },
    { name: 'name', value: file.name },
  ]
  if (file.dist !== undefined) parts.push({ name: 'dist', value: file.dist })
  for (const h of file.headers ?? []) parts.push({ name: 'header', value: h })
  const { payload, contentType } = form(parts)
  return app.inject({
    method: 'POST',
    url,
    headers: { ...headers, 'content-type': contentType },
    payload,
  })
}

interface FileJson {
  id: string
  name: string
  dist: string | null
  headers: Record<string, string>
  size: number
  sha1: string
  dateCreated: string
}

async function list(where: 'org' | 'project', query = ''): Promise<FileJson[]> {
  const res = await app.inject({ url: `${filesUrl(where)}${query}`, headers: auth() })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<FileJson[]>()
}

type Frame = Record<string, unknown>
async function topFrame(n: number): Promise<Frame | undefined> {
  const res = await app.inject({
    url: `/api/0/projects/${team.projectId}/events/${eid(n)}/`,
    headers: ADMIN,
  })
  expect(res.statusCode, res.body).toBe(200)
  return res
    .json<{ exception: { values: { stacktrace: { frames: Frame[] } }[] } }>()
    .exception.values[0]?.stacktrace.frames.at(-1)
}

async function sendRun(n: number, file: string, url: string, release: string, dist?: string) {
  const frames = await framesOfRun(file, url, 'shop')
  await sendItems(app, { id: team.projectId, key: team.dsnKey }, [
    [
      'event',
      {
        event_id: eid(n),
        platform: 'javascript',
        release,
        ...(dist === undefined ? {} : { dist }),
        exception: {
          values: [{ type: 'Error', value: 'checkout failed', stacktrace: { frames } }],
        },
      },
    ],
  ])
}

const ENTRY = `import { run } from './app-source.js'\nexport { run }\n`

describe('release files over HTTP', () => {
  it('stores a .js and its .map as two files, 409s a taken name, lists them, resolves frames and deletes them', async () => {
    const { out } = await bundleApp(ENTRY, { format: 'iife', globalName: 'shop', salt: 'rf-http' })
    // The .js names its map only by its own `//# sourceMappingURL=` comment, as a bundler's
    // linked source map does (esbuild's `external` writes none; appending keeps positions).
    await appendFile(join(out, 'app.min.js'), '//# sourceMappingURL=app.min.js.map\n')
    const js = await readFile(join(out, 'app.min.js'))
    const map = await readFile(join(out, 'app.min.js.map'))

    const up = await upload(filesUrl('project'), { name: '~/static/app.min.js', data: js })
    expect(up.statusCode, up.body).toBe(201)
    const created = up.json<FileJson>()
    expect(created).toMatchObject({
      name: '~/static/app.min.js',
      dist: null,
      headers: {},
      size: js.length,
    })
    expect(created.sha1).toMatch(/^[0-9a-f]{40}$/)
    expect(Number.isFinite(Date.parse(created.dateCreated))).toBe(true)
    const upMap = await upload(filesUrl('org'), {
      name: '~/static/app.min.js.map',
      data: map,
      headers: ['Content-Type: application/json'],
    })
    expect(upMap.statusCode, upMap.body).toBe(201)
    expect(upMap.json<FileJson>().headers).toEqual({ 'Content-Type': 'application/json' })

    // The same name again, in either form: 409 (sentry-cli prints "File already present!").
    for (const where of ['org', 'project'] as const) {
      const dup = await upload(filesUrl(where), { name: '~/static/app.min.js', data: 'x' })
      expect(dup.statusCode, dup.body).toBe(409)
      expect(dup.json<{ detail: string }>().detail).toMatch(/already exists/)
    }
    // Another dist is another file.
    const distFile = await upload(filesUrl('project'), {
      name: '~/static/app.min.js',
      data: js,
      dist: 'android',
    })
    expect(distFile.statusCode, distFile.body).toBe(201)
    expect(distFile.json<FileJson>().dist).toBe('android')

    // Both forms list the release's files, by name then dist.
    for (const where of ['org', 'project'] as const) {
      expect((await list(where)).map((f) => [f.name, f.dist])).toEqual([
        ['~/static/app.min.js', null],
        ['~/static/app.min.js', 'android'],
        ['~/static/app.min.js.map', null],
      ])
    }
    // Pages follow the Link header as sentry-cli reads it.
    const first = await app.inject({ url: `${filesUrl('org')}?per_page=2`, headers: auth() })
    expect(first.json<FileJson[]>()).toHaveLength(2)
    const link = String(first.headers['link'])
    const next = /rel="next"; results="true"; cursor="([^"]+)"/.exec(link)?.[1]
    expect(next).toBeDefined()
    const second = await list('org', `?per_page=2&cursor=${next}`)
    expect(second.map((f) => f.name)).toEqual(['~/static/app.min.js.map'])
    const last = await app.inject({
      url: `${filesUrl('org')}?per_page=2&cursor=${next}`,
      headers: auth(),
    })
    expect(String(last.headers['link'])).toMatch(/rel="next"; results="false"/)

    // An event of the release resolves through the two files (the map of the .js's comment).
    await sendRun(1, join(out, 'app.min.js'), 'https://shop.example.com/static/app.min.js', VERSION)
    const top = await topFrame(1)
    expect(top?.['function']).toBe('explodeWithOriginalName')
    expect(top?.['abs_path']).toBe('https://shop.example.com/app-source.js')
    expect(top?.['data']).toEqual({ symbolicated: true, sourcemap: '~/static/app.min.js.map' })
    // Another release is not resolved by them.
    await sendRun(
      2,
      join(out, 'app.min.js'),
      'https://shop.example.com/static/app.min.js',
      'shop@0',
    )
    expect((await topFrame(2))?.['data']).toEqual({ sourcemap_error: 'no_release_artifact' })

    // One file's metadata, then its delete; a second delete is a 404.
    const one = await app.inject({ url: `${filesUrl('org')}${created.id}/`, headers: auth() })
    expect(one.statusCode, one.body).toBe(200)
    expect(one.json<FileJson>().name).toBe('~/static/app.min.js')
    const del = await app.inject({
      method: 'DELETE',
      url: `${filesUrl('project')}${created.id}/`,
      headers: auth(),
    })
    expect(del.statusCode, del.body).toBe(204)
    const again = await app.inject({
      method: 'DELETE',
      url: `${filesUrl('project')}${created.id}/`,
      headers: auth(),
    })
    expect(again.statusCode).toBe(404)
    expect((await list('org')).map((f) => f.name)).toEqual([
      '~/static/app.min.js',
      '~/static/app.min.js.map',
    ])
    // Its name is free again, and the one-file bundle went with it.
    const reup = await upload(filesUrl('org'), { name: '~/static/app.min.js', data: js })
    expect(reup.statusCode, reup.body).toBe(201)

    // `delete --all`: every file of the release.
    const all = await app.inject({
      method: 'DELETE',
      url: `/api/0/projects/${team.org}/${team.projectSlug}/files/source-maps/?name=${encodeURIComponent(VERSION)}`,
      headers: auth(),
    })
    expect(all.statusCode, all.body).toBe(204)
    expect(await list('project')).toEqual([])
    expect(await app.services.store.projectHasArtifacts(team.projectId)).toBe(false)
  }, 60_000)

  it('retention removes a release file as it removes a bundle: its row goes with it', async () => {
    const up = await upload(filesUrl('org'), { name: '~/old.js', data: 'console.log(1)\n' })
    expect(up.statusCode, up.body).toBe(201)
    const DAY = 86_400_000
    // Used or uploaded within the retention days: kept.
    await pruneArtifacts(app.services.store, 30, Date.now() + 29 * DAY)
    expect((await list('org')).map((f) => f.name)).toEqual(['~/old.js'])
    const pruned = await pruneArtifacts(app.services.store, 30, Date.now() + 31 * DAY)
    expect(pruned.bundles).toBeGreaterThanOrEqual(1)
    expect(await list('org')).toEqual([])
  })

  it('a project added to the release later resolves through the files uploaded before', async () => {
    const version = 'shop@6.0.0'
    const made = await app.inject({
      method: 'POST',
      url: `/api/0/organizations/${team.org}/releases/`,
      headers: auth(),
      payload: { version, projects: [team.projectSlug] },
    })
    expect(made.statusCode, made.body).toBe(201)
    const { out } = await bundleApp(ENTRY, { format: 'iife', globalName: 'shop', salt: 'rf-late' })
    const js = await readFile(join(out, 'app.min.js'))
    for (const [name, data, headers] of [
      ['~/static/app.min.js', js, ['Sourcemap: app.min.js.map']],
      ['~/static/app.min.js.map', await readFile(join(out, 'app.min.js.map')), []],
    ] as const) {
      const res = await upload(filesUrl('org', team, version), {
        name,
        data,
        headers: [...headers],
      })
      expect(res.statusCode, res.body).toBe(201)
    }
    const second = (
      await app.inject({
        method: 'POST',
        url: '/api/0/projects/',
        headers: ADMIN,
        payload: { name: 'Release Files mobile', team_id: team.teamId },
      })
    ).json<{ id: number; slug: string; dsn: string }>()
    const send = async (n: number) => {
      const frames = await framesOfRun(
        join(out, 'app.min.js'),
        'https://shop.example.com/static/app.min.js',
        'shop',
      )
      await sendItems(app, { id: second.id, key: new URL(second.dsn).username }, [
        [
          'event',
          {
            event_id: eid(n),
            platform: 'javascript',
            release: version,
            exception: {
              values: [{ type: 'Error', value: 'checkout failed', stacktrace: { frames } }],
            },
          },
        ],
      ])
      const res = await app.inject({
        url: `/api/0/projects/${second.id}/events/${eid(n)}/`,
        headers: ADMIN,
      })
      return res
        .json<{ exception: { values: { stacktrace: { frames: Frame[] } }[] } }>()
        .exception.values[0]?.stacktrace.frames.at(-1)
    }
    // Not a project of the release: its events do not see the files.
    expect((await send(30))?.['function']).not.toBe('explodeWithOriginalName')
    const added = await app.inject({
      method: 'PUT',
      url: `/api/0/organizations/${team.org}/releases/${version}/`,
      headers: auth(),
      payload: { projects: [second.slug] },
    })
    expect(added.statusCode, added.body).toBe(200)
    expect((await send(31))?.['function']).toBe('explodeWithOriginalName')

    // Deleting the release deletes its files, as in Sentry.
    const removed = await app.inject({
      method: 'DELETE',
      url: `/api/0/organizations/${team.org}/releases/${version}/`,
      headers: auth(),
    })
    expect(removed.statusCode, removed.body).toBe(204)
    const made2 = await app.inject({
      method: 'POST',
      url: `/api/0/organizations/${team.org}/releases/`,
      headers: auth(),
      payload: { version, projects: [team.projectSlug, second.slug] },
    })
    expect(made2.statusCode, made2.body).toBe(201)
    expect(
      (await app.inject({ url: filesUrl('org', team, version), headers: auth() })).json(),
    ).toEqual([])
    expect((await send(32))?.['function']).not.toBe('explodeWithOriginalName')
  }, 60_000)

  it('refuses bad input with a 4xx and a detail, and hides other teams and unknown releases', async () => {
    const cases: { res: Awaited<ReturnType<typeof upload>>; status: number; detail: RegExp }[] = [
      {
        res: await upload(filesUrl('org', team, 'no-such@1'), { name: '~/a.js', data: 'a' }),
        status: 404,
        detail: /no such release/,
      },
      {
        // Another team's token, on this team's release: as if there were none.
        res: await upload(filesUrl('org'), { name: '~/a.js', data: 'a' }, auth(other)),
        status: 404,
        detail: /no such/,
      },
      {
        res: await upload(filesUrl('project'), {
          name: '~/broken.js.map',
          data: '{"version":3,"mappings":5,"sources":[]}',
        }),
        status: 400,
        detail: /broken\.js\.map/,
      },
      {
        res: await upload(filesUrl('project'), { name: '~/a.js', data: 'a', headers: ['nocolon'] }),
        status: 400,
        detail: /Key: Value/,
      },
      {
        res: await upload(filesUrl('project'), {
          name: '~/a.js',
          data: 'a',
          headers: [`Sourcemap: ${'m'.repeat(5000)}.map`],
        }),
        status: 400,
        detail: /header: over 4096 bytes/,
      },
      {
        res: await upload(filesUrl('project'), { name: '~/a.js', data: 'a', dist: 'x/y' }),
        status: 400,
        detail: /dist/,
      },
      {
        res: await upload(filesUrl('project'), { name: `~/${'a'.repeat(3000)}.js`, data: 'a' }),
        status: 400,
        detail: /name the file/,
      },
    ]
    for (const c of cases) {
      expect(c.res.statusCode, c.res.body).toBe(c.status)
      expect(c.res.json<{ detail: string }>().detail).toMatch(c.detail)
    }
    const noFile = form([{ name: 'name', value: '~/a.js' }])
    const res = await app.inject({
      method: 'POST',
      url: filesUrl('org'),
      headers: { ...auth(), 'content-type': noFile.contentType },
      payload: noFile.payload,
    })
    expect(res.statusCode, res.body).toBe(400)
    const json = await app.inject({
      method: 'POST',
      url: filesUrl('org'),
      headers: auth(),
      payload: { name: '~/a.js' },
    })
    expect(json.statusCode, json.body).toBe(415)
    const badCursor = await app.inject({ url: `${filesUrl('org')}?cursor=abc`, headers: auth() })
    expect(badCursor.statusCode).toBe(400)
    // Another team's project slug in the project form, and a read with its token: 404.
    const foreign = await app.inject({
      url: `/api/0/projects/${team.org}/${other.projectSlug}/releases/${VERSION}/files/`,
      headers: auth(),
    })
    expect(foreign.statusCode).toBe(404)
    const read = await app.inject({ url: filesUrl('org'), headers: auth(other) })
    expect(read.statusCode).toBe(404)
    expect(await list('org')).toEqual([])
  })
})

describe('stock sentry-cli 2.58 releases files', () => {
  it('uploads, lists and deletes release files; an event of the release resolves through them', async () => {
    const env = { url: base, token: team.token }
    const at = ['--org', team.org, '--project', team.projectSlug]
    const version = 'shop@3.0.0'
    await sentryCli(2, ['releases', ...at, 'new', version], env)
    const { out } = await bundleApp(ENTRY, { format: 'iife', globalName: 'shop', salt: 'rf-cli' })
    const files = ['releases', ...at, 'files', version]
    // The .js names its map by a header stored with it (`-H`), the CLI's way for a file
    // without a `sourceMappingURL` comment.
    const js = await sentryCli(
      2,
      [
        ...files,
        'upload',
        join(out, 'app.min.js'),
        '~/static/app.min.js',
        '-H',
        'Sourcemap: app.min.js.map',
      ],
      env,
    )
    expect(js).toMatch(/A [0-9a-f]{40} {2}\(\d+ bytes\)/)
    await sentryCli(
      2,
      [...files, 'upload', join(out, 'app.min.js.map'), '~/static/app.min.js.map'],
      env,
    )
    // A second upload of a name is refused (the server's 409).
    await expect(
      sentryCli(2, [...files, 'upload', join(out, 'app.min.js'), '~/static/app.min.js'], env),
    ).rejects.toThrow(/File already present/)
    const listed = await sentryCli(2, [...files, 'list'], env)
    // The "Source Map" column shows the header.
    expect(listed).toMatch(/~\/static\/app\.min\.js\s.*app\.min\.js\.map/)
    expect(listed).toContain('~/static/app.min.js.map')
    expect(listed).toMatch(/~\/static\/app\.min\.js\s/)

    await sendRun(
      10,
      join(out, 'app.min.js'),
      'https://shop.example.com/static/app.min.js',
      version,
    )
    const top = await topFrame(10)
    expect(top?.['function']).toBe('explodeWithOriginalName')
    expect(top?.['data']).toEqual({ symbolicated: true, sourcemap: '~/static/app.min.js.map' })

    const deleted = await sentryCli(2, [...files, 'delete', '~/static/app.min.js'], env)
    expect(deleted).toContain('D ~/static/app.min.js')
    const after = await sentryCli(2, [...files, 'list'], env)
    expect(after).toContain('~/static/app.min.js.map')
    expect(after).not.toMatch(/~\/static\/app\.min\.js\s/)
    const all = await sentryCli(2, [...files, 'delete', '--all'], env)
    expect(all).toContain('All files deleted.')
    expect(await sentryCli(2, [...files, 'list'], env)).not.toContain('app.min.js')
  }, 120_000)

  it('uploads a directory: with a project as an artifact bundle, without one as a legacy release bundle', async () => {
    const env = { url: base, token: team.token }
    const at = ['--org', team.org, '--project', team.projectSlug]
    const url = 'https://shop.example.com/static/app.min.js'
    for (const [n, version, withProject, command] of [
      [20, 'shop@4.0.0', true, 'upload-sourcemaps'],
      [21, 'shop@5.0.0', false, 'upload'],
    ] as const) {
      await sentryCli(2, ['releases', ...at, 'new', version], env)
      const { out } = await bundleApp(ENTRY, {
        format: 'iife',
        globalName: 'shop',
        salt: `rf-dir-${n}`,
      })
      await appendFile(join(out, 'app.min.js'), '//# sourceMappingURL=app.min.js.map\n')
      calls.length = 0
      const where = withProject ? at : ['--org', team.org]
      await sentryCli(
        2,
        [
          'releases',
          ...where,
          'files',
          version,
          command,
          out,
          '--url-prefix',
          '~/static',
          '--dist',
          'web',
        ],
        env,
      )
      const assembles = calls.filter((c) => c.includes('/assemble/'))
      expect(assembles.length, calls.join('\n')).toBeGreaterThan(0)
      for (const c of assembles) {
        expect(c).toMatch(
          withProject
            ? /^POST \/api\/0\/organizations\/[^/]+\/artifactbundle\/assemble\/ 200$/
            : /^POST \/api\/0\/organizations\/[^/]+\/releases\/shop(@|%40)5\.0\.0\/assemble\/ 200$/,
        )
      }
      await sendRun(n, join(out, 'app.min.js'), url, version, 'web')
      const top = await topFrame(n)
      expect(top?.['function'], `${command} ${version}`).toBe('explodeWithOriginalName')
      expect(top?.['data']).toEqual({ symbolicated: true, sourcemap: '~/static/app.min.js.map' })
    }
  }, 120_000)
})
