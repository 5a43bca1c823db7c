import { describe, expect, it } from 'vitest'
import { buildApp } from '../src/app.ts'
import { openSqliteStore } from '../src/store/sqlite/index.ts'
import { row } from './store-contract/contract.ts'
import { openWithProject } from './store-contract/contract-setup.ts'
import { parseMetrics, sampleValue } from './support/metrics-text.ts'
import { testConfig } from './support/test-config.ts'

const DAY = 86_400_000

describe('retention in the running server', () => {
  it('sweeps events older than RETENTION_DAYS once the app is ready', async () => {
    const { store, project, key } = await openWithProject(() => openSqliteStore(':memory:'))
    const [r] = await store.write([
      {
        events: [
          row(project.id, key.id, 'old', { received: Date.now() - 40 * DAY }),
          row(project.id, key.id, 'old', { received: Date.now() }),
        ],
        outcomes: [],
      },
    ])
    const issueId = r?.events[0]?.issueId ?? 0
    const app = await buildApp(testConfig({ retentionDays: 30 }), { store })
    try {
      await app.ready()
      const deadline = Date.now() + 10_000
      let left = (await store.listIssueEvents(issueId, { limit: 10 })).events.length
      while (left !== 1 && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 20))
        left = (await store.listIssueEvents(issueId, { limit: 10 })).events.length
      }
      expect(left).toBe(1)
      expect((await store.getIssue(issueId))?.timesSeen).toBe(2)
      // `/metrics` counts what the sweep removed, once the sweep is over.
      const removed = async () =>
        sampleValue(
          parseMetrics((await app.services.metrics?.render())?.body ?? ''),
          'ingest_retention_rows_removed_total',
          { kind: 'events' },
        )
      let counted = await removed()
      while (counted !== 1 && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 20))
        counted = await removed()
      }
      expect(counted).toBe(1)
    } finally {
      await app.close()
    }
  })
})
