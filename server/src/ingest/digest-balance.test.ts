import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { decodePayload } from '../store/payload-codec.ts'
import { openSqliteStore } from '../store/sqlite/index.ts'
import type { IngestStore, WriteUnit } from '../store/types.ts'
import { balancedDigestStore, DigestBalance, nextShare } from './digest-balance.ts'
import { DIGEST_ON_WRITE_MODULE } from './digest-on-write.ts'
import { parseEnvelope } from './envelope.ts'

const FIXTURE = join(
  import.meta.dirname,
  '../../../fixtures/envelopes/event/node-11-error.envelope',
)
const eventBytes = (id: string): Buffer => {
  const item = parseEnvelope(readFileSync(FIXTURE)).items.find((i) => i.header.type === 'event')
  if (item === undefined) throw new Error('the fixture has no event item')
  const e = JSON.parse(item.payload.toString('utf8')) as Record<string, unknown>
  return Buffer.from(JSON.stringify({ ...e, event_id: id }))
}

describe('nextShare', () => {
  it('moves digest work to the main thread only while the writer is the saturated, busier thread', () => {
    expect(nextShare(0, 0.5, 0.95)).toBe(0.1)
    expect(nextShare(0.3, 0.6, 0.9)).toBe(0.4)
    // Never more than 0.7: the main thread also serves HTTP.
    expect(nextShare(0.7, 0.2, 1)).toBe(0.7)
    // Balanced within the margin: stays.
    expect(nextShare(0.4, 0.85, 0.9)).toBe(0.4)
  })

  it('moves it back when the main thread is the busier one or the writer has room', () => {
    expect(nextShare(0.4, 0.98, 0.85)).toBe(0.3)
    expect(nextShare(0.4, 0.3, 0.5)).toBe(0.3)
    expect(nextShare(0.05, 0.3, 0.5)).toBe(0)
    expect(nextShare(0, 0.1, 0.1)).toBe(0)
  })
})

describe('DigestBalance', () => {
  it('decides from the writer’s busy seconds once per period', () => {
    let now = 0
    let writerBusy = 0
    let mainBusy = 0
    const b = new DigestBalance(() => writerBusy, { now: () => now, busyMs: () => mainBusy })
    // Within the first period nothing is decided.
    now = 100
    writerBusy = 0.1
    expect(b.share()).toBe(0)
    // A writer busy the whole period while this (test) thread idles: work moves over.
    now = 200
    writerBusy = 0.2
    mainBusy = 100
    expect(b.share()).toBe(0.1)
    now = 400
    writerBusy = 0.4
    mainBusy = 200
    expect(b.share()).toBe(0.2)
    // Both threads busy the whole period: it stays.
    now = 600
    writerBusy = 0.6
    mainBusy = 400
    expect(b.share()).toBe(0.2)
    // An idle writer: it moves back.
    now = 800
    expect(b.share()).toBe(0.1)
  })
})

const dir = mkdtempSync(join(tmpdir(), 'digest-balance-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('balancedDigestStore on a SQLite file (writer thread)', () => {
  it('stores the same events whichever thread digests them, and refuses a bad unit alone', async () => {
    const store = await openSqliteStore(join(dir, 'b.sqlite'), {
      digestModule: DIGEST_ON_WRITE_MODULE,
    })
    try {
      expect(store.digestsOnWriter).toBe(true)
      let share = 0.5
      // A spy on what reaches the writer: the units still undigested there.
      const reached: number[] = []
      const spied: IngestStore = {
        digestsOnWriter: true,
        write: (units) => {
          reached.push(units.filter((u) => u.undigested !== undefined).length)
          return store.write(units)
        },
      }
      const writes = balancedDigestStore(spied, { share: () => share })
      const { project, key } = await store.createProject('P', 'p', 'a'.repeat(32))
      const unit = (id: string, payload = eventBytes(id)): WriteUnit => ({
        events: [],
        outcomes: [],
        undigested: {
          projectId: project.id,
          keyId: key.id,
          component: null,
          received: 1_790_000_000_000,
          clientIp: null,
          items: [{ payload, headerId: null }],
        },
      })
      const ids = Array.from({ length: 4 }, (_, i) => String(i + 1).repeat(32))
      const results = await writes.write([
        ...ids.map((id) => unit(id)),
        unit('f'.repeat(32), Buffer.from('[1,')),
      ])
      // Every second item was digested here (by credit): the writer got the other three, the
      // bad one among them, which it refused without writing anything of its unit.
      expect(reached).toEqual([3])
      expect(results.slice(0, 4).map((r) => r.events[0]?.eventId)).toEqual(ids)
      expect(results[4]?.refused).toMatchObject({ code: 'invalid_json', client: true })
      const issues = new Set(results.slice(0, 4).map((r) => r.events[0]?.issueId))
      expect(issues.size).toBe(1)
      // The rows are the digest's, whichever thread made them.
      for (const id of ids) {
        const e = await store.getEvent(project.id, id)
        expect(JSON.parse(decodePayload(e?.payload ?? ''))).toMatchObject({
          event_id: id,
          title: expect.stringContaining('Error'),
        })
      }
      // A share of 0 leaves everything to the writer.
      share = 0
      reached.length = 0
      await writes.write([unit('9'.repeat(32))])
      expect(reached).toEqual([1])
    } finally {
      await store.close()
    }
  }, 30_000)
})
