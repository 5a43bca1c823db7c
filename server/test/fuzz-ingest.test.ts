import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  ADMIN,
  createProject,
  eid,
  sentryAuth,
  type TestProject,
  testApp,
} from './support/helpers.ts'
import { fixtureEvents, mutateEvent, prng, seedFromEnv, serialise } from './support/mutate.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'
import { zstdCompress } from './support/zstd-cli.ts'

// Fuzzing every ingest endpoint with mutated fixtures: bit flips, truncation, wrong `length`,
// broken compression, deep nesting, wrong types in event fields, OTLP garbage, with valid
// events interleaved. Fails on any 5xx, any request left unanswered, any valid event lost, any
// read of an accepted event answering 5xx, and on memory growing past a bound. Seeded: the
// seed is printed; `FUZZ_SEED=<n>` replays a run.
const SEED = seedFromEnv(process.env)
const REQUESTS = 10_000
const PARALLEL = 32
/** A request not answered within this is "unanswered" (generous: the machine is shared). */
const ANSWER_MS = 20_000
/** RSS growth allowed over the run (bodies are ≤ a few hundred KiB; nothing may accumulate). */
const RSS_BOUND = 300 * 1024 * 1024

const FIXTURES = join(import.meta.dirname, '../../fixtures')

function files(dir: string, suffix: string): Buffer[] {
  const out: Buffer[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...files(path, suffix))
    else if (name.endsWith(suffix)) out.push(readFileSync(path))
  }
  return out
}

let app: FastifyInstance
let p: TestProject
let ui: UiClient

beforeAll(async () => {
  console.log(`ingest fuzz seed: FUZZ_SEED=${SEED}`)
  app = await testApp()
  p = await createProject(app)
  await createUser(app)
  ui = await signIn(app)
})
afterAll(() => app.close())

interface FuzzRequest {
  url: string
  headers: Record<string, string>
  payload: Buffer
  /** Set for a valid event that must be stored. */
  validId?: string
}

it('survives 10,000 mutated requests without a 5xx, a hang, a lost event or a broken read', async () => {
  const rnd = prng(SEED)
  const int = (n: number) => Math.floor(rnd() * n)
  const envelopes = files(join(FIXTURES, 'envelopes'), '.envelope')
  const otlp = [
    ...files(join(FIXTURES, 'otlp'), '.otlp.json'),
    ...files(join(FIXTURES, 'otlp'), '.pb'),
  ]
  const events = fixtureEvents()
  // zstd by the real tool, once per fixture (Node 20 has no encoder).
  const zstdOf = new Map(envelopes.map((e) => [e, zstdCompress(e)]))
  expect(envelopes.length).toBeGreaterThan(20)
  expect(otlp.length).toBeGreaterThan(0)

  const flip = (b: Buffer): Buffer => {
    const c = Buffer.from(b)
    for (let k = 1 + int(8); k > 0; k--) {
      const i = int(c.length)
      c[i] = (c[i] ?? 0) ^ (1 << int(8))
    }
    return c
  }
  const truncate = (b: Buffer) => b.subarray(0, int(b.length))
  const wrongLength = (b: Buffer) =>
    Buffer.from(
      b
        .toString('latin1')
        .replace(/"length":\d+/g, () => `"length":${[0, 1, 10 ** int(10), -1][int(4)]}`),
      'latin1',
    )
  const envelopeOfEvent = (e: Record<string, unknown>, id: string) =>
    Buffer.from(`{"event_id":"${id}"}\n{"type":"event"}\n${serialise(e, 500 + int(3000))}`)

  const key = `?sentry_key=${p.key}`
  const envelopeUrl = `/api/${p.id}/envelope/${key}`
  let valid = 0
  const build = (n: number): FuzzRequest => {
    if (n % 10 === 0) {
      valid++
      const id = eid(1_000_000 + n)
      const base = events[int(events.length)] ?? {}
      return {
        url: envelopeUrl,
        headers: {},
        payload: Buffer.from(
          `{"event_id":"${id}"}\n{"type":"event"}\n${JSON.stringify({ ...base, event_id: id })}`,
        ),
        validId: id,
      }
    }
    const env = envelopes[int(envelopes.length)] ?? Buffer.alloc(0)
    switch (int(10)) {
      case 0:
        return { url: envelopeUrl, headers: {}, payload: flip(env) }
      case 1:
        return { url: envelopeUrl, headers: {}, payload: truncate(env) }
      case 2:
        return { url: envelopeUrl, headers: {}, payload: wrongLength(env) }
      case 3: {
        const which = int(5)
        const packed =
          [
            gzipSync,
            deflateSync,
            deflateRawSync,
            brotliCompressSync,
            (b: Buffer) => zstdOf.get(b) ?? b,
          ][which] ?? gzipSync
        const encoding = ['gzip', 'deflate', 'deflate', 'br', 'zstd'][which] ?? 'gzip'
        const body = packed(env)
        const broken = [
          flip(body),
          truncate(body),
          Buffer.concat([body, flip(env.subarray(0, 64))]),
          env,
        ][int(4)]
        return {
          url: envelopeUrl,
          headers: { 'content-encoding': encoding },
          payload: broken ?? body,
        }
      }
      case 4:
      case 5:
      case 6: {
        const e = mutateEvent(events[int(events.length)] ?? {}, rnd)
        return {
          url: [envelopeUrl, `/api/${p.id}/store/${key}`][int(2)] ?? envelopeUrl,
          headers: {},
          payload: envelopeOfEvent(e, eid(2_000_000 + n)),
        }
      }
      case 7: {
        const body = otlp[int(otlp.length)] ?? Buffer.alloc(0)
        const isPb = body[0] !== 0x7b
        return {
          url: `/api/${p.id}/otlp/v1/logs`,
          headers: {
            'content-type': isPb ? 'application/x-protobuf' : 'application/json',
            'x-sentry-auth': sentryAuth(p.key),
          },
          payload: [flip(body), truncate(body), body][int(3)] ?? body,
        }
      }
      case 8: {
        // Credentials only in a mutated envelope header, or broken ones.
        const dsnHeader = `{"dsn":"${p.dsn}","event_id":"${eid(3_000_000 + n)}"}\n`
        const rest = env.subarray(env.indexOf(10) + 1)
        return {
          url: `/api/${p.id}/envelope/`,
          headers:
            int(2) === 0 ? {} : { 'x-sentry-auth': `Sentry sentry_key=${'z'.repeat(int(40))}` },
          payload: int(2) === 0 ? Buffer.concat([Buffer.from(dsnHeader), rest]) : flip(env),
        }
      }
      default: {
        const deep = `${'['.repeat(1000 + int(9000))}${']'.repeat(int(2) === 0 ? 0 : 10_000)}`
        return {
          url: envelopeUrl,
          headers: {},
          payload: Buffer.from(`{}\n{"type":"event"}\n{"extra":${deep}}`),
        }
      }
    }
  }

  const rssBefore = process.memoryUsage().rss
  let peak = rssBefore
  const accepted: string[] = []
  const statuses = new Map<number, number>()
  const send = async (n: number): Promise<void> => {
    const r = build(n)
    let timer: NodeJS.Timeout | undefined
    const res = await Promise.race([
      app.inject({ method: 'POST', url: r.url, headers: r.headers, payload: r.payload }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`request ${n} unanswered (FUZZ_SEED=${SEED}): ${r.url}`)),
          ANSWER_MS,
        )
      }),
    ]).finally(() => clearTimeout(timer))
    statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
    if (res.statusCode >= 500) {
      throw new Error(
        `request ${n} answered ${res.statusCode} (FUZZ_SEED=${SEED}): ${r.url} ${res.body.slice(0, 300)}\n${r.payload.subarray(0, 300).toString('latin1')}`,
      )
    }
    if (r.validId !== undefined) {
      expect(res.statusCode, `valid event ${n}: ${res.body}`).toBe(200)
      accepted.push(r.validId)
    } else if (res.statusCode === 200 && r.url.includes('/envelope/')) {
      const id = (res.json() as { id?: unknown }).id
      if (typeof id === 'string' && accepted.length % 3 === 0) accepted.push(id)
    }
  }
  for (let start = 0; start < REQUESTS; start += PARALLEL) {
    await Promise.all(
      Array.from({ length: Math.min(PARALLEL, REQUESTS - start) }, (_, i) => send(start + i)),
    )
    peak = Math.max(peak, process.memoryUsage().rss)
  }
  console.log(`ingest fuzz statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
  expect(peak - rssBefore).toBeLessThan(RSS_BOUND)

  // No valid event was lost, and every read of accepted events renders.
  const ok = (res: LightMyRequestResponse, what: string) =>
    expect(res.statusCode, `${what} (FUZZ_SEED=${SEED}): ${res.body.slice(0, 300)}`).toBeLessThan(
      500,
    )
  let checked = 0
  for (const id of accepted) {
    const ev = await app.inject({ url: `/api/0/projects/${p.id}/events/${id}/`, headers: ADMIN })
    const isValid = Number.parseInt(id, 16) >= 1_000_000 && Number.parseInt(id, 16) < 2_000_000
    if (isValid) expect(ev.statusCode, `valid event ${id} lost (FUZZ_SEED=${SEED})`).toBe(200)
    if (ev.statusCode !== 200) continue
    if (checked++ % 10 !== 0 && isValid) continue
    const issueId = ev.json<{ issue_id: number }>().issue_id
    ok(await app.inject({ url: `/api/0/issues/${issueId}/`, headers: ADMIN }), 'issue API')
    ok(await ui.get(`/issues/${issueId}`), 'issue page')
    ok(await ui.get(`/projects/${p.id}/events/${id}`), 'event page')
  }
  expect(accepted.length).toBeGreaterThanOrEqual(valid)
  ok(await app.inject({ url: `/api/0/projects/${p.id}/issues/`, headers: ADMIN }), 'issue list API')
  ok(await ui.get(`/projects/${p.id}/issues`), 'issue list page')
  ok(await ui.get(`/projects/${p.id}/outcomes`), 'outcomes page')
}, 180_000)
