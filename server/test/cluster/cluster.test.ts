import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadDriver, runDriver } from '../../../conformance/src/harness/drivers.ts'
import { HealthApi } from '../../../conformance/src/harness/health-crons.ts'
import { envelopeOf, sentryAuth } from '../support/helpers.ts'
import { openSse } from '../support/sse-client.ts'
import {
  type Cluster,
  type ClusterProject,
  clusterProject,
  sendEvent,
  startCluster,
} from './nodes.ts'

// Three real server processes on one PostgreSQL behind a round-robin proxy: the deployment
// docs/deployment.md describes, with one node killed (SIGKILL) in the middle of the load.
let cluster: Cluster
beforeAll(async () => {
  // The test clock: the cron check drives every node's clock to one instant.
  cluster = await startCluster(3, { INGEST_TEST_CLOCK: '1' })
}, 90_000)
afterAll(async () => {
  await cluster?.stop()
}, 30_000)

const newId = () => randomBytes(16).toString('hex')

/** Stock SDK drivers sent through the proxy; each must report a complete flush. */
const SDK_DRIVERS = ['node', 'python'] as const

async function runSdkDrivers(p: ClusterProject): Promise<string[]> {
  const ids: string[] = []
  for (const name of SDK_DRIVERS) {
    const driver = loadDriver(name)
    // A missing runtime fails the test: a cluster check that did not run is not a pass.
    if (driver.missing !== undefined)
      throw new Error(`${name} driver cannot run: ${driver.missing}`)
    const out = await runDriver(driver, { scenario: 'grouping', dsn: p.dsn, timeout: 30_000 })
    expect(out.event_ids.length).toBeGreaterThan(0)
    ids.push(...out.event_ids)
  }
  return ids
}

/**
 * A sender whose acknowledgements are known exactly: `workers` loops post one event each at a
 * time through the proxy and, like an SDK's retry, resend the same event id until a 200 (a
 * connection cut by the killed node, or a 503, is retried). `acked` holds the ids answered 200.
 * `withSessions`: each envelope also ends a session of that id (release health under load).
 */
function rawSender(p: ClusterProject, workers: number, withSessions = false) {
  const acked = new Set<string>()
  let stopping = false
  let retries = 0
  const loop = async () => {
    while (!stopping) {
      const id = newId()
      for (let attempt = 0; ; attempt++) {
        const status = await sendEvent(cluster.url, p, id, 'cluster load', withSessions)
        if (status === 200) {
          acked.add(id)
          break
        }
        if (attempt >= 20) throw new Error(`event ${id} not accepted after 20 attempts (${status})`)
        retries++
        await new Promise((r) => setTimeout(r, 50))
      }
    }
  }
  const done = Promise.all(Array.from({ length: workers }, loop))
  return {
    acked,
    retries: () => retries,
    stop: async () => {
      stopping = true
      await done
    },
  }
}

const until = async (cond: () => boolean, timeoutMs: number, what: string) => {
  const deadline = Date.now() + timeoutMs
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('three nodes on one PostgreSQL', { timeout: 60_000 }, () => {
  it('an event sent to one node appears live on a stream served by another', async () => {
    const p = await clusterProject(cluster, 'cluster-live')
    const [a, , c] = cluster.nodes
    const stream = await openSse(`${c?.url}/ui/live?project=${p.id}`, {
      authorization: `Bearer ${cluster.token}`,
    })
    try {
      const id = newId()
      expect(await sendEvent(a?.url ?? '', p, id)).toBe(200)
      const msg = await stream.next(5000)
      expect(JSON.parse(msg?.data ?? '{}')).toMatchObject({ eventId: id })
    } finally {
      stream.close()
    }
  })

  it('a missed cron run becomes exactly one issue event, whichever nodes run the clock', async () => {
    const p = await clusterProject(cluster, 'cluster-cron')
    const crons = new HealthApi(cluster.url, cluster.token)
    const checkIn = envelopeOf([
      [
        'check_in',
        {
          check_in_id: crypto.randomUUID(),
          monitor_slug: 'nightly',
          status: 'ok',
          monitor_config: {
            schedule: { type: 'crontab', value: '*/5 * * * *' },
            checkin_margin: 2,
          },
        },
      ],
    ])
    const res = await fetch(`${cluster.url}/api/${p.id}/envelope/`, {
      method: 'POST',
      headers: { 'x-sentry-auth': sentryAuth(p.key) },
      body: checkIn,
    })
    expect(res.status).toBe(200)
    const [monitor] = await crons.monitors(p.id)
    const deadline = Date.parse(monitor?.environments[0]?.next_checkin_latest ?? '')
    expect(Number.isFinite(deadline)).toBe(true)
    // Every node's clock ticks past the deadline at once, twice.
    const ticks = cluster.nodes.map((n) => new HealthApi(n.url, cluster.token))
    for (let round = 0; round < 2; round++) {
      await Promise.all(ticks.map((t) => t.tick(deadline + 60_000)))
    }
    const counts = await cluster.storedCounts(p.id)
    expect(counts.size).toBe(1)
    expect([...counts.values()]).toEqual([1])
  })

  it('stores every acknowledged event exactly once, and counts it once, while a node is killed with SIGKILL', async () => {
    const p = await clusterProject(cluster, 'cluster-kill')
    const sender = rawSender(p, 4, true)
    const sdkBefore = await runSdkDrivers(p)
    await until(() => sender.acked.size >= 60, 30_000, '60 acknowledged events')
    await cluster.nodes[1]?.kill()
    const atKill = sender.acked.size
    await until(() => sender.acked.size >= atKill + 60, 30_000, '60 more after the kill')
    await sender.stop()
    // Stock SDKs after the kill: the proxy skips the dead node, as a balancer would.
    const sdkAfter = await runSdkDrivers(p)

    const counts = await cluster.storedCounts(p.id)
    const expected = [...sender.acked, ...sdkBefore, ...sdkAfter]
    const wrong = expected.filter((id) => counts.get(id) !== 1)
    expect(wrong.map((id) => `${id}: ${counts.get(id) ?? 0}`)).toEqual([])
    expect([...counts.values()].every((n) => n === 1)).toBe(true)
    // Nothing else was stored: the sender resends an id until its 200, so every id it sent
    // is acknowledged, and a resend of one stored before its answer was lost is no copy.
    expect(counts.size).toBe(expected.length)
    // All three nodes took traffic before the kill.
    expect(cluster.proxy.connections.every((n) => n > 0)).toBe(true)
    // Counters equal the stored events: the killed node's committed deltas were folded by the
    // others, and nothing was folded twice or lost.
    expect(await cluster.counterMismatches(p.id)).toEqual([])
    // Every acknowledged envelope's session is in the release health the API shows, once.
    const res = await fetch(`${cluster.url}/api/0/projects/${p.id}/releases/`, {
      headers: { authorization: `Bearer ${cluster.token}` },
    })
    expect(res.status).toBe(200)
    const releases = (await res.json()) as { version: string; health: { sessions: number } }[]
    expect(releases.find((r) => r.version === 'cluster@1')?.health.sessions).toBe(sender.acked.size)
  })
})
