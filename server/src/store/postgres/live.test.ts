import { describe, expect, it } from 'vitest'
import { row } from '../../../test/store-contract/contract.ts'
import { pgNodesPerTest } from '../../../test/support/postgres-nodes.ts'
import { notifyStored } from './live.ts'

const twoNodes = pgNodesPerTest()

describe('stored-event notices on PostgreSQL', () => {
  it('name each event by its row id, whether the write read it back or it is looked up', async () => {
    const { a, b, project, key } = await twoNodes()
    const [sender, listener] = [a.notices, b.notices]
    if (sender === undefined || listener === undefined) throw new Error('no notice channel')
    // Received now, as the node that announces them stored them (the lookup searches the last
    // hour's partitions).
    const now = Date.now()
    const [r] = await a.write([
      {
        events: ['n1', 'n2'].map((h) => row(project.id, key.id, h, { received: now })),
        outcomes: [],
      },
    ])
    const [e1, e2] = r?.events ?? []
    expect(e1?.rowId).toBeGreaterThan(0)
    const payloads: string[] = []
    const unlisten = await listener.listen('test_notices', {
      notice: (p) => {
        if (p !== undefined) payloads.push(p)
      },
      reconnected: () => undefined,
    })
    try {
      const base = { projectId: project.id, issueCreated: true, regressed: false }
      await notifyStored(sender, 'test_notices', [
        // As the ingest write answers: with the row id and issue.
        { ...base, eventId: e1?.eventId ?? '', issueId: e1?.issueId, rowId: e1?.rowId },
        // Without them: looked up by event id.
        { ...base, eventId: e2?.eventId ?? '' },
      ])
      for (let i = 0; i < 50 && payloads.length < 2; i++)
        await new Promise((s) => setTimeout(s, 20))
      const got = payloads.flatMap((p) => JSON.parse(p) as { id: number; eventId: string }[])
      expect(got).toEqual(
        [e1, e2].map((e) => ({ ...base, id: e?.rowId, issueId: e?.issueId, eventId: e?.eventId })),
      )
    } finally {
      unlisten()
    }
  })
})
