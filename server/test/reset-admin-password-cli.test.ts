/**
 * `npm run reset-admin-password` as the operator runs it: a real child process on the test's
 * database (a SQLite file, or the PostgreSQL database of the app under TEST_DATABASE=postgres).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { auditRows } from './support/account-helpers.ts'
import { testApp } from './support/helpers.ts'
import { createUser, signIn } from './support/ui-helpers.ts'

const root = resolve(import.meta.dirname, '../..')
const cli = join(root, 'server/src/cli/reset-admin-password.ts')
const dir = mkdtempSync(join(tmpdir(), 'ingest-reset-cli-'))
const databasePath = join(dir, 'ingest.sqlite')
let app: FastifyInstance

beforeAll(async () => {
  app = await testApp({ databasePath, dataDir: dir })
})
afterAll(async () => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs the command with `args` (and `stdin`); resolves its exit code and output. */
function run(
  args: string[],
  stdin = '',
): Promise<{ code: number | null; out: string; err: string }> {
  const url = app.services.config.databaseUrl
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', './scripts/tsx-in-worker-threads.mjs', cli, ...args],
    {
      cwd: root,
      env: {
        PATH: process.env['PATH'] ?? '',
        ...(url === undefined
          ? { DATA_DIR: dir, DATABASE_PATH: databasePath }
          : { DATABASE_URL: url }),
      },
    },
  )
  let out = ''
  let err = ''
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString()
  })
  child.stderr.on('data', (c: Buffer) => {
    err += c.toString()
  })
  child.stdin.end(stdin)
  return new Promise((done) => child.on('close', (code) => done({ code, out, err })))
}

describe('reset-admin-password', () => {
  it('prints a new password for the first admin and ends its sessions; audited as system', async () => {
    const admin = await createUser(app, 'root@example.com', 'forgotten password', true)
    await createUser(app, 'later-admin@example.com', 'another password', true)
    const session = await signIn(app, 'root@example.com', 'forgotten password')
    const r = await run([])
    expect(r.err).toBe('')
    expect(r.code).toBe(0)
    expect(r.out).toContain('root@example.com')
    const password = /new password: (\S+)/.exec(r.out)?.[1] ?? ''
    expect(password.length).toBeGreaterThanOrEqual(20)
    expect((await session.get('/projects')).statusCode).toBe(303)
    await expect(signIn(app, 'root@example.com', 'forgotten password')).rejects.toThrow(/401/)
    await signIn(app, 'root@example.com', password)
    const rows = await auditRows(app, 'password.reset')
    expect(rows).toHaveLength(1)
    expect(rows[0]).toMatchObject({
      actor: { kind: 'system', user_id: null },
      target: `user:${admin.id}`,
      details: { via: 'command' },
    })
  })

  it('sets a password read from stdin for --email; refuses short ones and unknown users', async () => {
    const r = await run(
      ['--email', 'later-admin@example.com', '--password-stdin'],
      'chosen on stdin\n',
    )
    expect(r.code).toBe(0)
    expect(r.out).not.toContain('new password:')
    await signIn(app, 'later-admin@example.com', 'chosen on stdin')

    const short = await run(['--email', 'later-admin@example.com', '--password-stdin'], 'short\n')
    expect(short.code).toBe(2)
    expect(short.err).toContain('at least 8')
    const unknown = await run(['--email', 'nobody@example.com'])
    expect(unknown.code).toBe(1)
    expect(unknown.err).toContain('no user nobody@example.com')
    expect(await auditRows(app, 'password.reset')).toHaveLength(2)
  })
})
