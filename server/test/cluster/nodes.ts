import { randomBytes } from 'node:crypto'
import pg from 'pg'
import { Api, parseDsn } from '../../../conformance/src/harness/api.ts'
import { type RunningServer, startServer } from '../../../conformance/src/harness/server.ts'
import { envelopeOf, eventEnvelope, sentryAuth } from '../support/helpers.ts'
import { createTestDatabase, type TestDatabase } from '../support/postgres-database.ts'
import { type RoundRobinProxy, startProxy } from './proxy.ts'

/** N real server processes on one PostgreSQL database behind a round-robin proxy. */
export interface Cluster {
  nodes: RunningServer[]
  proxy: RoundRobinProxy
  /** The proxy's base URL: what SDKs and the raw sender talk to. */
  url: string
  /** The admin token every node shares. */
  token: string
  db: TestDatabase
  /** The management API through the proxy, or through one node. */
  api(node?: number): Api
  /** How many times each event id of a project is stored, read from the database. */
  storedCounts(projectId: number): Promise<Map<string, number>>
  /**
   * Once every node folded its pending counter deltas (polled until none is left), each
   * counter of the project that differs from the stored events it counts: `times_seen` and the
   * hourly summaries per issue, and the `accepted` error outcomes. Empty when all are exact.
   */
  counterMismatches(projectId: number): Promise<string[]>
  stop(): Promise<void>
}

/** A project with its key, and its DSN pointing at the proxy. */
export interface ClusterProject {
  id: number
  key: string
  dsn: string
}

/**
 * Starts `n` nodes the way production runs them (the conformance harness's child processes,
 * `server/src/main.ts`) on a fresh database of the run's PostgreSQL, with one admin token, and
 * a round-robin proxy in front. `env` adds settings to every node.
 */
export async function startCluster(n: number, env: Record<string, string> = {}): Promise<Cluster> {
  const db = await createTestDatabase()
  const token = randomBytes(24).toString('hex')
  const nodes: RunningServer[] = []
  let proxy: RoundRobinProxy | undefined
  const stop = async () => {
    await proxy?.close()
    const results = await Promise.allSettled(nodes.map((s) => s.stop()))
    await db.drop()
    const failed = results.find((r) => r.status === 'rejected')
    if (failed !== undefined) throw failed.reason
  }
  try {
    const started = await Promise.allSettled(
      Array.from({ length: n }, () =>
        startServer({
          // The built server, as production runs it (`npm test` builds it first; alone, run
          // `npx tsc -b server`): it starts in half the time of the sources through tsx,
          // which matters with three starting at once on two busy cores.
          entry: 'dist',
          readyTimeoutMs: 60_000,
          env: {
            DATABASE_URL: db.url,
            INGEST_ADMIN_TOKEN: token,
            DATABASE_POOL_SIZE: '3',
            LOG_LEVEL: 'warn',
            ...env,
          },
        }),
      ),
    )
    for (const s of started) if (s.status === 'fulfilled') nodes.push(s.value)
    const failed = started.find((s) => s.status === 'rejected')
    if (failed !== undefined) throw failed.reason
    proxy = await startProxy(nodes.map((s) => Number(new URL(s.url).port)))
  } catch (err) {
    await stop().catch(() => undefined)
    throw err
  }
  const url = `http://127.0.0.1:${proxy.port}`
  return {
    nodes,
    proxy,
    url,
    token,
    db,
    api: (node) => new Api(node === undefined ? url : (nodes[node] as RunningServer).url, token),
    storedCounts: async (projectId) => {
      const c = new pg.Client({ connectionString: db.url })
      await c.connect()
      try {
        const { rows } = await c.query<{ event_id: string; n: string }>(
          'SELECT event_id, count(*) AS n FROM events WHERE project_id = $1 GROUP BY event_id',
          [projectId],
        )
        return new Map(rows.map((r) => [r.event_id, Number(r.n)]))
      } finally {
        await c.end()
      }
    },
    counterMismatches: async (projectId) => {
      const c = new pg.Client({ connectionString: db.url })
      await c.connect()
      try {
        const deadline = Date.now() + 15_000
        for (;;) {
          const { rows } = await c.query<{ n: string }>('SELECT count(*) AS n FROM counter_deltas')
          if (Number(rows[0]?.n) === 0) break
          if (Date.now() > deadline) return [`${rows[0]?.n} counter deltas never folded`]
          await new Promise((r) => setTimeout(r, 50))
        }
        const issues = await c.query<{ id: string; times_seen: string; hours: string; n: string }>(
          `SELECT i.id, i.times_seen,
             (SELECT coalesce(sum(events), 0) FROM issue_hours h WHERE h.issue_id = i.id) AS hours,
             (SELECT count(*) FROM events e WHERE e.issue_id = i.id) AS n
           FROM issues i WHERE i.project_id = $1`,
          [projectId],
        )
        const wrong = issues.rows.flatMap((r) =>
          r.times_seen === r.n && r.hours === r.n
            ? []
            : [`issue ${r.id}: times_seen ${r.times_seen}, hours ${r.hours}, events ${r.n}`],
        )
        const o = await c.query<{ accepted: string; n: string }>(
          `SELECT (SELECT coalesce(sum(quantity), 0) FROM outcomes WHERE project_id = $1
                     AND outcome = 'accepted' AND category = 'error') AS accepted,
                  (SELECT count(*) FROM events WHERE project_id = $1) AS n`,
          [projectId],
        )
        const t = o.rows[0]
        if (t === undefined || t.accepted !== t.n)
          wrong.push(`accepted outcomes ${t?.accepted}, events ${t?.n}`)
        if (issues.rows.length === 0) wrong.push('no issues')
        // Release health: the hourly rollups (folded deltas) hold each stored session once.
        const h = await c.query<{ rolled: string; n: string }>(
          `SELECT (SELECT coalesce(sum(sessions), 0) FROM health_hours WHERE project_id = $1) AS rolled,
                  (SELECT count(*) FROM health_sessions WHERE project_id = $1) AS n`,
          [projectId],
        )
        const hs = h.rows[0]
        if (hs === undefined || hs.rolled !== hs.n)
          wrong.push(`health rollups count ${hs?.rolled} sessions, ${hs?.n} stored`)
        return wrong
      } finally {
        await c.end()
      }
    },
    stop,
  }
}

/** Creates a project through the proxy; its DSN points at the proxy, not at one node. */
export async function clusterProject(cluster: Cluster, name: string): Promise<ClusterProject> {
  const api = cluster.api()
  const p = await api.createProject(name)
  const [k] = await api.keys(p.id)
  const key = parseDsn(k?.dsn ?? '').publicKey
  return { id: p.id, key, dsn: `http://${key}@127.0.0.1:${cluster.proxy.port}/${p.id}` }
}

/**
 * Posts one event envelope to `base` and returns the status (0: the connection failed). With
 * `withSession`, the envelope also carries an ended session whose id is the event id (a
 * resend counts it once, like the event).
 */
export async function sendEvent(
  base: string,
  p: ClusterProject,
  eventId: string,
  message = `cluster ${eventId}`,
  withSession = false,
): Promise<number> {
  const event = { event_id: eventId, message, level: 'error' }
  const session = {
    sid: eventId,
    init: true,
    started: new Date().toISOString(),
    status: 'exited',
    errors: 0,
    attrs: { release: 'cluster@1', environment: 'prod' },
  }
  try {
    const res = await fetch(`${base}/api/${p.id}/envelope/`, {
      method: 'POST',
      headers: { 'x-sentry-auth': sentryAuth(p.key) },
      body: withSession
        ? envelopeOf(
            [
              ['event', event],
              ['session', session],
            ],
            { event_id: eventId },
          )
        : eventEnvelope(event),
    })
    await res.arrayBuffer()
    return res.status
  } catch {
    return 0
  }
}
