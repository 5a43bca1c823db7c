import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventEnvelope, sentryAuth } from '../support/helpers.ts'
import { type Cluster, type ClusterProject, clusterProject, startCluster } from './nodes.ts'

// A project's data-scrubbing and inbound-filter settings changed through one node are in force
// on another node within 2 s: two real server processes on one PostgreSQL, the change carried
// by the change feed (LISTEN/NOTIFY) that drops the other node's cached key and settings.
let cluster: Cluster
beforeAll(async () => {
  cluster = await startCluster(2)
}, 90_000)
afterAll(async () => {
  await cluster?.stop()
}, 30_000)

const newId = () => randomBytes(16).toString('hex')

/** Posts one event to `base`; the answer's status. */
async function send(base: string, p: ClusterProject, event: Record<string, unknown>) {
  const res = await fetch(`${base}/api/${p.id}/envelope/`, {
    method: 'POST',
    headers: { 'x-sentry-auth': sentryAuth(p.key) },
    body: eventEnvelope(event),
  })
  await res.arrayBuffer()
  return res.status
}

/** The stored event as node `node`'s API returns it, or undefined when it was not stored. */
async function stored(node: number, p: ClusterProject, eventId: string) {
  return cluster.api(node).event(p.id, eventId)
}

describe('privacy settings across two nodes', { timeout: 60_000 }, () => {
  it('a filter and a sensitive field set through node A hold on node B within 2 s', async () => {
    const p = await clusterProject(cluster, 'cluster-privacy')
    const nodeA = cluster.nodes[0]?.url ?? ''
    const nodeB = cluster.nodes[1]?.url ?? ''
    const noisy = (id: string) => ({
      event_id: id,
      level: 'error',
      message: 'cluster noisy widget failed',
      extra: { member_no: 'M-7731-MEMBER' },
    })
    // Positive control: before the change node B stores the event (and caches the key and the
    // settings that come with it) and keeps the member number.
    const before = newId()
    expect(await send(nodeB, p, noisy(before))).toBe(200)
    const kept = await stored(1, p, before)
    expect(JSON.stringify(kept)).toContain('M-7731-MEMBER')

    const put = await fetch(`${nodeA}/api/0/projects/${p.id}/privacy/`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${cluster.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        sensitive_fields: ['member_no'],
        filters: { error_messages: ['*noisy widget*'] },
      }),
    })
    expect(put.status).toBe(200)
    const changed = Date.now()

    // Node B: poll until an event of the filtered kind is dropped (answered 200, not stored).
    let filteredAfter: number | undefined
    for (;;) {
      const id = newId()
      expect(await send(nodeB, p, noisy(id))).toBe(200)
      if ((await stored(1, p, id)) === undefined) {
        filteredAfter = Date.now() - changed
        break
      }
      if (Date.now() - changed > 2_000) break
      await new Promise((r) => setTimeout(r, 25))
    }
    expect(filteredAfter, 'node B still stored a filtered event 2 s after the change').toBeLessThan(
      2_000,
    )

    // Node B now scrubs the new sensitive field, and keeps an event the filter does not match.
    const other = newId()
    expect(await send(nodeB, p, { ...noisy(other), message: 'cluster quiet widget failed' })).toBe(
      200,
    )
    const scrubbed = await stored(1, p, other)
    expect(scrubbed?.event_id).toBe(other)
    const text = JSON.stringify(scrubbed)
    expect(text).not.toContain('M-7731-MEMBER')
    expect(text).toContain('[Filtered]')
    // The stored database rows agree with the API: the one filtered event is absent.
    const counts = await cluster.storedCounts(p.id)
    expect(counts.get(before)).toBe(1)
    expect(counts.get(other)).toBe(1)
  })
})
