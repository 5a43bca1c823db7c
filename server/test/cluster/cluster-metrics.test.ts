import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningServer } from '../../../conformance/src/harness/server.ts'
import { boundedLabel } from '../../src/metrics/labels.ts'
import { envelopeOf, sentryAuth } from '../support/helpers.ts'
import { parseMetrics, sumBy } from '../support/metrics-text.ts'
import {
  type Cluster,
  type ClusterProject,
  clusterProject,
  sendEvent,
  startCluster,
} from './nodes.ts'

// Two real server processes on one PostgreSQL behind a round-robin proxy, each with its own
// metrics listener (METRICS_PORT=0: a free port, printed in the ready line): each node counts
// what it wrote, and the nodes' counts add up to the database's outcomes exactly.
let cluster: Cluster
beforeAll(async () => {
  cluster = await startCluster(2, { METRICS_PORT: '0' })
}, 90_000)
afterAll(async () => {
  await cluster?.stop()
}, 30_000)

/** The metrics URL a node printed in its ready line. */
function metricsUrlOf(node: RunningServer): string {
  for (const line of node.logs) {
    try {
      const v = JSON.parse(line) as { msg?: unknown; metricsUrl?: unknown }
      if (v.msg === 'listening' && typeof v.metricsUrl === 'string') return v.metricsUrl
    } catch {
      // Not a JSON line.
    }
  }
  throw new Error(`no metrics URL in the node's output:\n${node.logs.join('\n')}`)
}

/** `outcome|reason|category → quantity` of one node's /metrics. */
async function nodeOutcomes(node: RunningServer): Promise<Record<string, number>> {
  const res = await fetch(`${metricsUrlOf(node)}/metrics`)
  expect(res.status).toBe(200)
  return sumBy(
    parseMetrics(await res.text()),
    'ingest_outcomes_total',
    (l) => `${l['outcome']}|${l['reason']}|${l['category']}`,
  )
}

/** The project's outcomes as the database has them, through the API. */
async function databaseOutcomes(p: ClusterProject): Promise<Record<string, number>> {
  const until = Math.ceil(Date.now() / 1000) + 86_400
  const res = await fetch(
    `${cluster.url}/api/0/projects/${p.id}/outcomes/?since=0&until=${until}`,
    {
      headers: { authorization: `Bearer ${cluster.token}` },
    },
  )
  expect(res.status).toBe(200)
  const out: Record<string, number> = {}
  const body = (await res.json()) as {
    totals: { outcome: string; reason: string; category: string; quantity: number }[]
  }
  for (const r of body.totals) {
    const k = `${r.outcome}|${boundedLabel(r.reason)}|${boundedLabel(r.category)}`
    out[k] = (out[k] ?? 0) + r.quantity
  }
  return out
}

describe('/metrics on several nodes of one PostgreSQL', () => {
  it("adds up, node by node, to the database's outcomes", async () => {
    const p = await clusterProject(cluster, 'metrics')
    const ids = Array.from({ length: 24 }, () => randomBytes(16).toString('hex'))
    // Each event twice: the second is a duplicate wherever it lands.
    for (const id of [...ids, ...ids]) expect(await sendEvent(cluster.url, p, id)).toBe(200)
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${cluster.url}/api/${p.id}/envelope/`, {
        method: 'POST',
        headers: { 'x-sentry-auth': sentryAuth(p.key) },
        body: envelopeOf([
          ['event', '{broken'],
          [
            'client_report',
            { discarded_events: [{ reason: 'sample_rate', category: 'error', quantity: 3 }] },
          ],
        ]),
      })
      expect(res.status).toBe(400)
    }
    const expected = await databaseOutcomes(p)
    expect(expected).toMatchObject({ 'accepted||error': 24, 'duplicate||error': 24 })
    const [a, b] = await Promise.all(cluster.nodes.map(nodeOutcomes))
    // Both nodes took part (round robin), and their sums are the database's.
    expect(Object.keys(a ?? {}).length).toBeGreaterThan(0)
    expect(Object.keys(b ?? {}).length).toBeGreaterThan(0)
    const sum: Record<string, number> = { ...a }
    for (const [k, v] of Object.entries(b ?? {})) sum[k] = (sum[k] ?? 0) + v
    expect(sum).toEqual(expected)
  }, 60_000)
})
