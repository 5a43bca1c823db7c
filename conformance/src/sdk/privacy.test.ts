/**
 * Server-side scrubbing with stock SDKs in real web apps: an Express app with @sentry/node
 * (`sendDefaultPii: false`) and a Flask app with sentry-sdk (`send_default_pii=True`) throw in a
 * `POST /login` whose body, query, headers, cookies and local variables hold secrets. None of
 * them may be found afterwards: not in the event the API returns, not in the issue list, not
 * anywhere in the database file (stored payloads decoded).
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readStoredPayload } from '../../../server/src/store/payload-codec.ts'
import { Api } from '../harness/api.ts'
import { loadDriver } from '../harness/drivers.ts'
import { runProgram } from '../harness/health-crons.ts'
import { repoRoot } from '../harness/paths.ts'
import { type RunningServer, startServer } from '../harness/server.ts'
import { waitFor } from '../harness/wait.ts'

let server: RunningServer
let api: Api
beforeAll(async () => {
  server = await startServer()
  api = new Api(server.url, server.adminToken)
})
afterAll(async () => {
  await server?.stop()
})

/** Every value of every table of the server's database, stored payloads decoded. */
function databaseText(): string {
  const db = new Database(join(server.dataDir, 'ingest.sqlite'), { readonly: true })
  const out: string[] = []
  try {
    const tables = db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
    for (const { name } of tables)
      for (const row of db.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[])
        for (const v of Object.values(row)) {
          if (v instanceof Uint8Array) {
            try {
              out.push(readStoredPayload(v))
            } catch {
              out.push(Buffer.from(v).toString('latin1'))
            }
          } else out.push(String(v))
        }
  } finally {
    db.close()
  }
  return out.join('\n')
}

const node = loadDriver('node')
const flaskPython = 'conformance/.venv-web/bin/python'
const apps = [
  {
    label: 'Express + @sentry/node, sendDefaultPii false',
    driver: node,
    program: 'conformance/drivers/node/privacy-express.mjs',
    missing: existsSync(join(repoRoot, 'node_modules/express/package.json'))
      ? node.missing
      : 'express is not installed: run `npm install`',
  },
  {
    label: 'Flask + sentry-sdk, send_default_pii True',
    driver: { ...node, name: 'flask', command: [flaskPython] },
    program: 'conformance/drivers/python/privacy_flask.py',
    missing: existsSync(join(repoRoot, flaskPython))
      ? undefined
      : 'no conformance/.venv-web: run `node scripts/setup-python.mjs`',
  },
]

describe.each(apps)('scrubbing: $label', (app) => {
  if (app.missing !== undefined) {
    it.skip(`unavailable: ${app.missing}`, () => {})
    return
  }
  it('stores, shows and answers none of the secrets, and says what it removed', async () => {
    const project = await api.createProject(`privacy ${app.label}`)
    // The drivers' own secrets (not passed as arguments: Python's SDK reports `sys.argv`).
    const secret = 'hunter2-privacy-7f3a'
    const card = '4111 1111 1111 1111'
    const report = await runProgram({
      driver: app.driver,
      program: app.program,
      args: [],
      dsn: project.dsn,
    })
    const ids = report['event_ids'] as string[]
    expect(ids.length).toBe(1)
    const id = ids[0] as string
    const stored = await waitFor(() => api.event(project.id, id), { message: `event ${id}` })
    const text = JSON.stringify(stored)
    // Positive control: the request reached the event (the SDK sent it).
    expect(text).toContain('/login')
    expect(text).toContain('bob')
    for (const s of [secret, card, card.replaceAll(' ', '')]) {
      const at = text.indexOf(s)
      expect(at === -1 ? '' : text.slice(Math.max(0, at - 150), at + 40), `${s} in the event`).toBe(
        '',
      )
    }
    expect(text).toContain('[Filtered]')
    const meta = JSON.stringify((stored as Record<string, unknown>)['_meta'])
    expect(meta).toContain('@creditcard')
    expect(meta).toContain('@password')
    const issues = JSON.stringify(await api.issues(project.id))
    expect(issues).toContain('login failed')
    expect(issues.includes(secret)).toBe(false)
    expect(issues.includes(card)).toBe(false)
    const db = databaseText()
    expect(db).toContain('login failed')
    for (const s of [secret, card, card.replaceAll(' ', '')])
      expect(db.includes(s), `${s} in the database`).toBe(false)
  })
})
