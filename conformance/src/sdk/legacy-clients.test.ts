/**
 * The legacy raven clients, as old apps still run them: raven-python 6.10 and raven-node 2.6.4
 * (their last releases, stock from PyPI and npm) report an exception whose frame or request holds
 * secrets, and a message, to the `/store/` endpoint with nothing but a DSN. Each event is
 * stored with Sentry's title and level, the log template rendered with its parameters, and no
 * secret left in it.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Api, type StoredEvent } from '../harness/api.ts'
import { loadDriver, onCi } from '../harness/drivers.ts'
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

const node = loadDriver('node')
const ravenPython = 'conformance/.venv-raven/bin/python'

/** Why a client cannot run here, or undefined. */
const missing = (file: string, reason: string) =>
  existsSync(join(repoRoot, file)) ? undefined : reason

const clients = [
  {
    label: 'raven-python 6.10',
    driver: { ...node, name: 'raven-python', command: [ravenPython] },
    program: 'conformance/drivers/python/legacy_raven.py',
    missing: missing(
      ravenPython,
      'no conformance/.venv-raven: run `node scripts/setup-python.mjs`',
    ),
    release: 'raven-app@6.10',
    exception: { title: 'ZeroDivisionError: division by zero', frame: 'charge' },
    // raven sends the template and each parameter's repr, unrendered; rendered as Relay does.
    message: { title: "order 'A-17' failed after 3 tries", level: 'error' },
    secrets: ['hunter2-raven-6c1', '4111 1111 1111 1111', 'raven-key-6c2'],
  },
  {
    label: 'raven-node 2.6.4',
    driver: node,
    program: 'conformance/drivers/node/legacy-raven.cjs',
    missing: missing(
      'node_modules/raven/package.json',
      'raven is not installed: run `npm install`',
    ),
    release: 'raven-node-app@2.6.4',
    exception: { title: 'TypeError: order B-9 has no items', frame: 'charge' },
    message: { title: 'inventory sync stalled', level: 'warning' },
    secrets: ['raven-node-7d1', 'raven-node-pw-7d2'],
  },
]

describe.each(clients)('$label', (client) => {
  if (client.missing !== undefined) {
    // On CI a missing client fails the file, as a missing driver runtime does.
    if (onCi()) throw new Error(`${client.label}: ${client.missing}`)
    it.skip(`unavailable: ${client.missing}`, () => {})
    return
  }
  it('stores its exception and message as Sentry shows them, without the secrets', async () => {
    const project = await api.createProject(`legacy ${client.label}`)
    const report = await runProgram({
      driver: client.driver,
      program: client.program,
      args: [],
      dsn: project.dsn,
    })
    const ids = (report['event_ids'] as string[]).map((id) => id.replaceAll('-', ''))
    expect(ids.length).toBe(2)
    const [exceptionId, messageId] = ids as [string, string]
    const stored: StoredEvent[] = []
    for (const id of ids)
      stored.push(await waitFor(() => api.event(project.id, id), { message: `event ${id}` }))
    for (const e of stored) {
      expect(e['release']).toBe(client.release)
      expect(e['environment']).toBe('legacy')
    }

    const issues = await api.issues(project.id)
    const exceptionIssue = issues.find((i) => i.id === stored[0]?.issue_id)
    const messageIssue = issues.find((i) => i.id === stored[1]?.issue_id)
    expect(exceptionIssue?.title).toBe(client.exception.title)
    expect(exceptionIssue?.level).toBe('error')
    expect(exceptionIssue?.culprit ?? '').toContain(client.exception.frame)
    expect(messageIssue?.title).toBe(client.message.title)
    expect(messageIssue?.level).toBe(client.message.level)
    expect(exceptionIssue?.id).not.toBe(messageIssue?.id)

    const text = JSON.stringify(stored)
    // Positive control: the frame the secrets were reported with is there.
    expect(text).toContain(client.exception.frame)
    expect(text).toContain('[Filtered]')
    for (const s of client.secrets) {
      const at = text.indexOf(s)
      expect(at === -1 ? '' : text.slice(Math.max(0, at - 120), at + 40), `${s} stored`).toBe('')
    }
    expect(JSON.stringify(issues).includes(client.secrets[0] as string)).toBe(false)
    expect([exceptionId, messageId]).toEqual(stored.map((e) => e.event_id))
  })
})
