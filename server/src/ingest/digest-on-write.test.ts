import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { row } from '../../test/store-contract/contract.ts'
import { decodePayload } from '../store/payload-codec.ts'
import { openSqliteStore } from '../store/sqlite/index.ts'
import type { UndigestedEvents, WriteUnit } from '../store/types.ts'
import { DIGEST_ON_WRITE_MODULE, digestingStore, digestUnits } from './digest-on-write.ts'
import { parseEnvelope } from './envelope.ts'
import { digestPayload } from './items/event.ts'

const FIXTURE = join(
  import.meta.dirname,
  '../../../fixtures/envelopes/event/node-11-error.envelope',
)
const eventBytes = (): Buffer => {
  const item = parseEnvelope(readFileSync(FIXTURE)).items.find((i) => i.header.type === 'event')
  if (item === undefined) throw new Error('the fixture has no event item')
  return item.payload
}
const payloadId = (JSON.parse(eventBytes().toString('utf8')) as { event_id: string }).event_id

const undigested = (
  projectId: number,
  keyId: number,
  items: UndigestedEvents['items'],
): UndigestedEvents => ({
  projectId,
  keyId,
  component: null,
  received: 1_790_000_000_000,
  clientIp: '192.0.2.7',
  items,
})

const dir = mkdtempSync(join(tmpdir(), 'digest-on-write-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('digestUnits', () => {
  it('appends each item’s row after the unit’s events and fails a unit whole on a bad item', () => {
    const ready = row(1, 2, 'h')
    const good: WriteUnit = {
      events: [ready],
      outcomes: [],
      undigested: undigested(1, 2, [{ payload: eventBytes(), headerId: 'f'.repeat(32) }]),
    }
    const bad: WriteUnit = {
      events: [],
      outcomes: [],
      undigested: undigested(1, 2, [
        { payload: eventBytes(), headerId: null },
        { payload: Buffer.from('[1,2'), headerId: null },
      ]),
    }
    const failures = digestUnits([good, bad])
    expect(failures[0]).toBeUndefined()
    expect(good.undigested).toBeUndefined()
    expect(good.events.map((e) => e.eventId)).toEqual([ready.eventId, 'f'.repeat(32)])
    // The same row the inline digest makes, from the same scope.
    const inline = digestPayload(
      eventBytes(),
      {
        project: { id: 1 },
        key: { id: 2, component: null },
        received: 1_790_000_000_000,
        clientIp: '192.0.2.7',
      },
      'f'.repeat(32),
    )
    expect(good.events[1]).toEqual(inline)
    expect(failures[1]).toEqual({
      code: 'invalid_json',
      detail: expect.stringContaining('not JSON'),
      client: true,
    })
    // A failed unit is left as it was: none of its rows joined it.
    expect(bad.events).toEqual([])
    expect(bad.undigested?.items).toHaveLength(2)
  })
})

// The SQLite file store opened with the digest module digests on its writer thread; the
// in-memory one, and a file store opened without it, are wrapped and digest on this thread.
// All must answer the same.
let files = 0
const fileOf = (): string => join(dir, `w-${++files}.sqlite`)
describe.each([
  [
    'sqlite file, writer thread',
    true,
    () => openSqliteStore(fileOf(), { digestModule: DIGEST_ON_WRITE_MODULE }),
  ],
  ['sqlite file without a digest module, calling thread', false, () => openSqliteStore(fileOf())],
  ['sqlite in memory, calling thread', false, () => openSqliteStore(':memory:')],
])('undigested events through %s', (_name, onWriter, open) => {
  it('stores the units that digest, refuses the one that does not, and writes none of it', async () => {
    const store = await open()
    try {
      const writes = digestingStore(store)
      expect(store.digestsOnWriter === true).toBe(onWriter)
      expect(writes === store).toBe(onWriter)
      const { project, key } = await store.createProject('P', 'p', 'a'.repeat(32))
      const before = row(project.id, key.id, 'ready')
      const kept = row(project.id, key.id, 'ready')
      const [ok, refused, alone] = await writes.write([
        {
          events: [],
          outcomes: [],
          undigested: undigested(project.id, key.id, [{ payload: eventBytes(), headerId: null }]),
        },
        {
          events: [before],
          outcomes: [],
          undigested: undigested(project.id, key.id, [
            { payload: Buffer.from('"text"'), headerId: null },
          ]),
        },
        { events: [kept], outcomes: [] },
      ])
      expect(ok?.refused).toBeUndefined()
      expect(ok?.events).toMatchObject([{ eventId: payloadId, duplicate: false }])
      expect(refused).toEqual({
        events: [],
        refused: { code: 'invalid_json', detail: expect.any(String), client: true },
      })
      expect(alone?.events).toMatchObject([{ eventId: kept.eventId, duplicate: false }])
      const stored = await store.getEvent(project.id, payloadId)
      expect(stored?.issueId).toBe(ok?.events[0]?.issueId)
      const text = decodePayload(stored?.payload ?? '')
      expect(JSON.parse(text)).toMatchObject({ event_id: payloadId, platform: 'node' })
      // Nothing of the refused unit, not even its ready row, was written.
      expect(await store.getEvent(project.id, before.eventId)).toBeUndefined()
      // The same item again is a duplicate of what was stored.
      const [again] = await writes.write([
        {
          events: [],
          outcomes: [],
          undigested: undigested(project.id, key.id, [{ payload: eventBytes(), headerId: null }]),
        },
      ])
      expect(again?.events).toMatchObject([{ eventId: payloadId, duplicate: true }])
    } finally {
      await store.close()
    }
  })
})

describe('a writer thread opened without a digest module', () => {
  it('refuses undigested events rather than dropping them, and writes digested ones', async () => {
    const store = await openSqliteStore(fileOf())
    try {
      const { project, key } = await store.createProject('P', 'p', 'b'.repeat(32))
      await expect(
        store.write([
          {
            events: [],
            outcomes: [],
            undigested: undigested(project.id, key.id, [{ payload: eventBytes(), headerId: null }]),
          },
        ]),
      ).rejects.toThrow('undigested events reached a writer opened without a digest')
      const ready = row(project.id, key.id, 'ready')
      const [written] = await store.write([{ events: [ready], outcomes: [] }])
      expect(written?.events).toMatchObject([{ eventId: ready.eventId, duplicate: false }])
    } finally {
      await store.close()
    }
  })
})
