import { execFileSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sentryCli, type UploadTeam, uploadTeam } from './source-maps/world.ts'
import { ADMIN, testApp } from './support/helpers.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'

/**
 * Stock sentry-cli 2.58 and 3.8 (from npm) manage releases and deploys on the server, the
 * commands CI scripts run around a source-map upload and the bundler plugins run by default:
 * `releases new`, `set-commits` (from a real git checkout: the server has no repository
 * integrations), `finalize`, `deploys new|list`, `releases list|info|archive|restore|delete`.
 * Runs on SQLite and (integration-postgres) on PostgreSQL.
 */

let app: FastifyInstance
let base: string
let alpha: UploadTeam
let bravo: UploadTeam
/** A git checkout with three commits, the newest last. */
let checkout: string
let commits: string[]
let ui: UiClient

beforeAll(async () => {
  app = await testApp()
  alpha = await uploadTeam(app, 'Release Alpha')
  bravo = await uploadTeam(app, 'Release Bravo')
  base = await app.listen({ port: 0, host: '127.0.0.1' })
  await createUser(app)
  ui = await signIn(app)
  checkout = mkdtempSync(join(tmpdir(), 'cli-releases-git-'))
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: checkout,
      encoding: 'utf8',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'Dev',
        GIT_AUTHOR_EMAIL: 'dev@example.com',
        GIT_COMMITTER_NAME: 'Dev',
        GIT_COMMITTER_EMAIL: 'dev@example.com',
      },
    }).trim()
  git('init', '-q', '-b', 'main')
  git('remote', 'add', 'origin', 'https://github.com/example/shop.git')
  commits = []
  for (const n of [1, 2, 3]) {
    writeFileSync(join(checkout, 'file.txt'), `version ${n}\n`)
    git('add', 'file.txt')
    git('commit', '-q', '-m', `change ${n}`)
    commits.push(git('rev-parse', 'HEAD'))
  }
}, 60_000)
afterAll(async () => {
  await app?.close()
})

interface ReleaseJson {
  version: string
  dateStarted: string | null
  dateReleased: string | null
  status: string
  commitCount: number
  lastCommit: { id: string } | null
  deployCount: number
  lastDeploy: { environment: string; name: string | null } | null
  projects: { slug: string }[]
}

async function release(team: UploadTeam, version: string) {
  return app.inject({
    url: `/api/0/organizations/${team.org}/releases/${encodeURIComponent(version)}/`,
    headers: { authorization: `Bearer ${team.token}` },
  })
}

const cli = (major: 2 | 3, team: UploadTeam, args: string[], cwd?: string) =>
  sentryCli(major, [...args, '--org', team.org], { url: base, token: team.token }, cwd)

describe.each([2, 3] as const)('sentry-cli %i', (major) => {
  const version = `shop@${major}.0.0+build.7`
  // Each CLI in a team of its own: `set-commits` starts after the last commit of the team's
  // previous release, which the other CLI's run would have set to the checkout's head.
  let alpha: UploadTeam
  beforeAll(async () => {
    alpha = await uploadTeam(app, `Release Alpha ${major}`)
  })

  it('creates, sets commits, finalizes and deploys a release', async () => {
    const p = ['--project', alpha.projectSlug]
    expect(await cli(major, alpha, ['releases', 'new', version, ...p])).toContain(
      `Created release ${version}`,
    )
    let r = (await release(alpha, version)).json<ReleaseJson>()
    expect(r.projects.map((x) => x.slug)).toEqual([alpha.projectSlug])
    expect(r.dateStarted).not.toBeNull()
    expect(r.dateReleased).toBeNull()
    // A second `new` of the same version is no error (Sentry answers 208).
    await cli(major, alpha, ['releases', 'new', version, ...p])

    await cli(
      major,
      alpha,
      ['releases', 'set-commits', version, '--auto', '--ignore-missing'],
      checkout,
    )
    r = (await release(alpha, version)).json<ReleaseJson>()
    expect(r.commitCount).toBe(3)
    expect(r.lastCommit?.id).toBe(commits[2])

    expect(await cli(major, alpha, ['releases', 'finalize', version, ...p])).toContain(
      `Finalized release ${version}`,
    )
    r = (await release(alpha, version)).json<ReleaseJson>()
    expect(Date.parse(r.dateReleased ?? '')).toBeGreaterThan(Date.now() - 60_000)

    await cli(major, alpha, ['deploys', 'new', '-r', version, '-e', 'production', '-n', 'web 1'])
    await cli(major, alpha, ['deploys', 'new', '-r', version, '-e', 'staging'])
    r = (await release(alpha, version)).json<ReleaseJson>()
    expect(r.deployCount).toBe(2)
    expect(r.lastDeploy).toMatchObject({ environment: 'staging', name: null })
    const deploys = await cli(major, alpha, ['deploys', 'list', '-r', version])
    expect(deploys).toContain('production')
    expect(deploys).toContain('web 1')

    // The project's Releases page lists it, released, with its commits and last deploy.
    const page = (await ui.get(`/projects/${alpha.projectId}/releases`)).body
    expect(page).toContain('Recorded releases')
    expect(page).toContain(`<b>${version}</b>`)
    expect(page).toContain(commits[2]?.slice(0, 12))
    expect(page).toMatch(/<td class="small">staging, \d{4}-\d\d-\d\d/)

    const listed = await cli(major, alpha, ['releases', 'list', ...p])
    expect(listed).toContain(version)
    expect(await cli(major, alpha, ['releases', 'info', version])).toContain(version)
  })

  it('archives, restores and deletes; another team sees none of it', async () => {
    const v = `admin-${major}`
    await cli(major, alpha, ['releases', 'new', v, '--project', alpha.projectSlug])
    await cli(major, alpha, ['releases', 'archive', v])
    expect((await release(alpha, v)).json<ReleaseJson>().status).toBe('archived')
    await cli(major, alpha, ['releases', 'restore', v])
    expect((await release(alpha, v)).json<ReleaseJson>().status).toBe('open')

    // Bravo's token is refused on Alpha's organisation, and Bravo's has no such release.
    await expect(
      sentryCli(major, ['releases', 'info', v, '--org', alpha.org], {
        url: base,
        token: bravo.token,
      }),
    ).rejects.toThrow()
    expect((await release(bravo, v)).statusCode).toBe(404)

    await cli(major, alpha, ['releases', 'delete', v])
    expect((await release(alpha, v)).statusCode).toBe(404)
  })
})

describe('release API', () => {
  const post = (team: UploadTeam, url: string, payload: object) =>
    app.inject({
      method: 'POST',
      url: `/api/0/organizations/${team.org}/releases/${url}`,
      headers: { authorization: `Bearer ${team.token}` },
      payload,
    })

  it('shortens a commit SHA to 12 characters and a package@version to its version', async () => {
    const sha = '099963d22d91795c371944e801a7f1d87cc8da53'
    const res = await post(alpha, '', { version: sha, projects: [alpha.projectSlug] })
    expect(res.json<{ shortVersion: string }>().shortVersion).toBe('099963d22d91')
    const pkg = await post(alpha, '', { version: 'shop@2.1.7', projects: [alpha.projectSlug] })
    expect(pkg.json<{ shortVersion: string }>().shortVersion).toBe('2.1.7')
  })

  it('answers 201 once, then 208, and adds projects and dates on the second create', async () => {
    const first = await post(alpha, '', { version: 'api-1', projects: [alpha.projectSlug] })
    expect(first.statusCode, first.body).toBe(201)
    const again = await post(alpha, '', {
      version: 'api-1',
      projects: [alpha.projectId],
      dateReleased: '2026-11-27T10:00:00.123456789Z',
    })
    expect(again.statusCode, again.body).toBe(208)
    expect(again.json<ReleaseJson>().dateReleased).toBe('2026-11-27T10:00:00.123Z')
  })

  it("refuses bad versions, a release without projects and bad times; another team's project is missing", async () => {
    for (const version of ['', '.', 'latest', 'a/b', 'a\nb', 'x'.repeat(201)]) {
      const res = await post(alpha, '', { version, projects: [alpha.projectSlug] })
      expect(res.statusCode, version).toBe(400)
      expect(res.json<{ detail: string }>().detail).toBeTruthy()
    }
    expect(
      (await post(alpha, '', { version: 'v', projects: [bravo.projectSlug] })).statusCode,
    ).toBe(404)
    expect((await post(alpha, '', { version: 'v', projects: [] })).statusCode).toBe(400)
    const badTime = await post(alpha, '', {
      version: 'v',
      projects: [alpha.projectSlug],
      dateReleased: 'yesterday',
    })
    expect(badTime.statusCode).toBe(400)
    expect((await post(alpha, 'nope/deploys/', { environment: 'production' })).statusCode).toBe(404)
  })

  it("creates and reads back a version of 200 characters (Sentry's longest)", async () => {
    const version = `long@${'9'.repeat(195)}`
    const created = await post(alpha, '', { version, projects: [alpha.projectSlug] })
    expect(created.statusCode, created.body).toBe(201)
    const read = await release(alpha, version)
    expect(read.statusCode, read.body).toBe(200)
    expect(read.json<ReleaseJson>().version).toBe(version)
  })

  it('lists a project only its own releases; the team has no repositories', async () => {
    await post(alpha, '', { version: 'list-a', projects: [alpha.projectSlug] })
    await post(bravo, '', { version: 'list-b', projects: [bravo.projectSlug] })
    const res = await app.inject({
      url: `/api/0/projects/${bravo.org}/${bravo.projectSlug}/releases/`,
      headers: { authorization: `Bearer ${bravo.token}` },
    })
    expect(res.statusCode).toBe(200)
    expect(res.json<ReleaseJson[]>().map((r) => r.version)).toEqual(['list-b'])
    const repos = await app.inject({
      url: `/api/0/organizations/${bravo.org}/repos/`,
      headers: ADMIN,
    })
    expect(repos.json()).toEqual([])
  })
})

describe('previous release with commits', () => {
  it('is the newest earlier release of the team with commits, or {}', async () => {
    const team = await uploadTeam(app, 'Release Gamma')
    const h = { authorization: `Bearer ${team.token}` }
    const at = `/api/0/organizations/${team.org}/releases/`
    for (const version of ['g-1', 'g-2', 'g-3']) {
      await app.inject({
        method: 'POST',
        url: at,
        headers: h,
        payload: { version, projects: [team.projectSlug] },
      })
    }
    await app.inject({
      method: 'PUT',
      url: `${at}g-1/`,
      headers: h,
      payload: { commits: [{ id: 'b'.repeat(40) }, { id: 'a'.repeat(40) }] },
    })
    const prev = (v: string) => app.inject({ url: `${at}${v}/previous-with-commits/`, headers: h })
    expect((await prev('g-3')).json()).toMatchObject({
      version: 'g-1',
      lastCommit: { id: 'b'.repeat(40) },
    })
    expect((await prev('g-1')).json()).toEqual({})
  })
})
