import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { decodePayload } from '../store/payload-codec.ts'
import {
  type DigestJob,
  type DigestOutcome,
  decodeJobs,
  decodeOutcomes,
  encodeJobs,
  encodeOutcomes,
} from './digest-codec.ts'
import { DigestPool } from './digest-pool.ts'
import { parseEnvelope } from './envelope.ts'

const FIXTURES = join(import.meta.dirname, '../../../fixtures/envelopes/event')
const scope = {
  project: { id: 7 },
  key: { id: 3, component: 'checkout' },
  received: 1_700_000_000_123,
}

/** Every event item of the event fixtures, as the envelope parser hands them over. */
const fixtureJobs = (): DigestJob[] =>
  readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.envelope'))
    .flatMap((f) => parseEnvelope(readFileSync(join(FIXTURES, f))).items)
    .filter((i) => i.header.type === 'event')
    .map((i) => ({ scope, payload: i.payload, headerId: undefined }))

/** A row with its payload as text, comparable across the inline and threaded digests. */
const comparable = (o: DigestOutcome) =>
  'row' in o ? { ...o.row, payload: decodePayload(o.row.payload) } : o

describe('digest codec', () => {
  it('carries jobs and outcomes through one buffer each, bytes and text intact', () => {
    const jobs: DigestJob[] = [
      { scope, payload: Buffer.from('{"message":"ünïcødé ✓ 🚀"}'), headerId: 'a'.repeat(32) },
      {
        // A sender's clock 2 h behind (the envelope's sent_at) crosses with the job.
        scope: { ...scope, key: { id: 4, component: null }, clockDrift: 7_200_000 },
        payload: Buffer.alloc(0),
        headerId: undefined,
      },
    ]
    const back = decodeJobs(encodeJobs(jobs))
    expect(back.map((j) => [j.scope, Buffer.from(j.payload).toString(), j.headerId])).toEqual(
      jobs.map((j) => [j.scope, Buffer.from(j.payload).toString(), j.headerId]),
    )
    const row = new DigestPool(0).digest([jobs[0] as DigestJob])
    return row.then((outcomes) => {
      const mixed: DigestOutcome[] = [
        ...outcomes,
        { error: { code: 'invalid_json', detail: 'not JSON', client: true } },
        ...outcomes,
      ]
      const decoded = decodeOutcomes(encodeOutcomes(mixed))
      expect(decoded.map(comparable)).toEqual(mixed.map(comparable))
    })
  })
})

describe('digest threads', () => {
  it('digest every fixture event exactly as the main thread does, each request its own rows', async () => {
    const jobs = fixtureJobs()
    expect(jobs.length).toBeGreaterThan(5)
    const inline = await new DigestPool(0).digest(jobs)
    const pool = new DigestPool(2)
    // One request per job, all in one loop turn: they share batches, answers stay apart.
    const threaded = await Promise.all(jobs.map((j) => pool.digest([j])))
    expect(threaded.map((o) => o.length)).toEqual(jobs.map(() => 1))
    expect(threaded.flat().map(comparable)).toEqual(inline.map(comparable))
    // The payload comes back in its stored form (compressed), never decoded on the way.
    const first = threaded[0]?.[0]
    expect(first !== undefined && 'row' in first && first.row.payload instanceof Uint8Array).toBe(
      true,
    )
  })

  it('turn a payload that is not a JSON object into the client error of its request only', async () => {
    const pool = new DigestPool(1)
    const [good] = fixtureJobs()
    const bad: DigestJob = { scope, payload: Buffer.from('[1,2'), headerId: undefined }
    const [a, b] = await Promise.all([pool.digest([good as DigestJob]), pool.digest([bad])])
    expect(a?.[0] && 'row' in a[0]).toBe(true)
    expect(b).toEqual([
      {
        error: { code: 'invalid_json', detail: expect.stringContaining('not JSON'), client: true },
      },
    ])
    // The inline digest reports the same.
    expect(await new DigestPool(0).digest([bad])).toEqual(b)
  })
})
