/**
 * Release health with stock SDKs: sessions (Node process sessions, Node and Python request
 * aggregates, Python manual sessions) are folded into the rollups, and the crash-free rates the
 * API shows match what the programs did.
 */
import { describe, inject, it } from 'vitest'
import { Api } from '../harness/api.ts'
import { loadDriver } from '../harness/drivers.ts'
import { type Health, HealthApi, runProgram } from '../harness/health-crons.ts'
import { waitFor } from '../harness/wait.ts'

const api = new Api(inject('serverUrl'), inject('adminToken'))
const health = new HealthApi(inject('serverUrl'), inject('adminToken'))
const node = loadDriver('node')
const python = loadDriver('python')
const NODE_PROGRAM = 'conformance/drivers/node/sessions.mjs'
const PYTHON_PROGRAM = 'conformance/drivers/python/sessions.py'

/** Waits until the release shows `sessions` sessions (SDKs send from background queues). */
async function healthOnceComplete(projectId: number, release: string, sessions: number) {
  return waitFor(
    async (): Promise<Health | undefined> => {
      const h = await health.releaseHealth(projectId, release)
      return h !== undefined && h.sessions >= sessions ? h : undefined
    },
    { timeout: 10_000, message: `${sessions} sessions of ${release}` },
  )
}

describe.concurrent('release health: @sentry/node', () => {
  if (node.missing !== undefined) {
    it.skip(`node driver unavailable: ${node.missing}`, () => {})
    return
  }

  it('3 processes, 1 crashed by an uncaught error: 66.7 % crash-free sessions and users', async ({
    expect,
  }) => {
    const project = await api.createProject('health-node-process')
    const release = 'node-process@1.0.0'
    const run = (scenario: string, user: string) =>
      runProgram({
        driver: node,
        program: NODE_PROGRAM,
        args: [scenario, '--release', release, '--user', user],
        dsn: project.dsn,
        exitCodes: scenario === 'crash' ? [1] : [0],
      })
    await Promise.all([run('ok', 'alice'), run('ok', 'bob'), run('crash', 'carol')])
    const h = await healthOnceComplete(project.id, release, 3)
    expect(h).toMatchObject({ sessions: 3, sessions_crashed: 1, sessions_healthy: 2 })
    expect(h.crash_free_sessions).toBeCloseTo(66.67, 1)
    expect(h).toMatchObject({ users: 3, users_crashed: 1 })
    expect(h.crash_free_users).toBeCloseTo(66.67, 1)
  })

  it('a handled error leaves the session errored, not crashed; its two updates count once', async ({
    expect,
  }) => {
    const project = await api.createProject('health-node-errored')
    const release = 'node-errored@1.0.0'
    await runProgram({
      driver: node,
      program: NODE_PROGRAM,
      args: ['error', '--release', release, '--user', 'dave'],
      dsn: project.dsn,
    })
    const h = await healthOnceComplete(project.id, release, 1)
    expect(h).toMatchObject({ sessions: 1, sessions_errored: 1, crash_free_sessions: 100 })
  })

  it('an http server sends request sessions as aggregates', async ({ expect }) => {
    const project = await api.createProject('health-node-http')
    const release = 'node-http@1.0.0'
    const report = await runProgram({
      driver: node,
      program: NODE_PROGRAM,
      args: ['http', '--release', release],
      dsn: project.dsn,
    })
    expect(report['scenario']).toBe('http')
    const h = await healthOnceComplete(project.id, release, 3)
    expect(h).toMatchObject({
      sessions: 3,
      sessions_healthy: 2,
      sessions_errored: 1,
      crash_free_sessions: 100,
    })
  })
})

describe.concurrent('release health: sentry-sdk (python)', () => {
  if (python.missing !== undefined) {
    it.skip(`python driver unavailable: ${python.missing}`, () => {})
    return
  }

  it('a WSGI app: 3 requests, 1 crashed: aggregates give 66.7 % crash-free sessions', async ({
    expect,
  }) => {
    const project = await api.createProject('health-python-wsgi')
    const release = 'py-wsgi@1.0.0'
    await runProgram({
      driver: python,
      program: PYTHON_PROGRAM,
      args: ['wsgi', '--release', release],
      dsn: project.dsn,
    })
    const h = await healthOnceComplete(project.id, release, 3)
    expect(h).toMatchObject({ sessions: 3, sessions_crashed: 1, sessions_healthy: 2 })
    expect(h.crash_free_sessions).toBeCloseTo(66.67, 1)
  })

  it('manual sessions: one with a handled error, one clean', async ({ expect }) => {
    const project = await api.createProject('health-python-manual')
    const release = 'py-manual@1.0.0'
    const run = (scenario: string, user: string) =>
      runProgram({
        driver: python,
        program: PYTHON_PROGRAM,
        args: [scenario, '--release', release, '--user', user],
        dsn: project.dsn,
      })
    await Promise.all([run('manual', 'erin'), run('clean', 'frank')])
    const h = await healthOnceComplete(project.id, release, 2)
    expect(h).toMatchObject({
      sessions: 2,
      sessions_errored: 1,
      sessions_healthy: 1,
      crash_free_sessions: 100,
      users: 2,
      crash_free_users: 100,
    })
  })
})
