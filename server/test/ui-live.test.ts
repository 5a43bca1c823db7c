import type { AddressInfo } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REPLAY_LIMIT } from '../src/ui/live.ts'
import { createProject, eid, eventEnvelope, sentryAuth, testApp } from './support/helpers.ts'
import { openSse } from './support/sse-client.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'

let app: FastifyInstance
let ui: UiClient
let base: string
beforeAll(async () => {
  app = await testApp()
  await createUser(app)
  ui = await signIn(app)
  await app.listen({ host: '127.0.0.1', port: 0 })
  base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await app.close()
})

/** Reads SSE messages of a stream as they come. */
async function openStream(projectId: number) {
  const ac = new AbortController()
  const res = await fetch(`${base}/ui/live?project=${projectId}`, {
    headers: { cookie: ui.cookie, accept: 'text/event-stream' },
    signal: ac.signal,
  })
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/event-stream')
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const next = async (timeoutMs: number): Promise<{ event: string; data: string } | undefined> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = /^event: (.*)$/m.exec(block)?.[1]
        const data = /^data: (.*)$/m.exec(block)?.[1]
        if (event !== undefined && data !== undefined) return { event, data }
        continue
      }
      const left = deadline - Date.now()
      if (left <= 0) return undefined
      const chunk = await Promise.race([
        reader.read(),
        new Promise<undefined>((r) => setTimeout(() => r(undefined), left)),
      ])
      if (chunk === undefined || chunk.done) return undefined
      buffer += decoder.decode(chunk.value, { stream: true })
    }
  }
  return { next, close: () => ac.abort() }
}

const send = (projectId: number, key: string, eventId: string, message: string) =>
  fetch(`${base}/api/${projectId}/envelope/`, {
    method: 'POST',
    headers: { 'x-sentry-auth': sentryAuth(key) },
    body: eventEnvelope({ event_id: eventId, message, level: 'error', platform: 'node' }),
  })

describe('live updates', () => {
  it('pushes a stored event to the project stream', async () => {
    const p = await createProject(app, 'live')
    const other = await createProject(app, 'live-other')
    const stream = await openStream(p.id)
    try {
      await send(other.id, other.key, 'b'.repeat(32), 'elsewhere')
      const res = await send(p.id, p.key, 'a'.repeat(32), 'live one')
      expect(res.status).toBe(200)
      const msg = await stream.next(10_000)
      expect(msg?.event).toBe('stored')
      const data = JSON.parse(msg?.data ?? '{}') as Record<string, unknown>
      expect(data).toMatchObject({ eventId: 'a'.repeat(32), issueCreated: true })
      // The page's script then fetches the list fragment, which already holds the issue.
      const fragment = await ui.get(`/projects/${p.id}/issues/fragment`)
      expect(fragment.body).toContain(`<tr data-issue="${data['issueId']}">`)
      expect(fragment.body).toContain('live one')
      expect(JSON.parse(String(fragment.headers['x-tab-counts']))).toEqual({
        review: 1,
        unresolved: 1,
        resolved: 0,
        ignored: 0,
      })
      expect(await stream.next(300)).toBeUndefined()
    } finally {
      stream.close()
    }
  })

  it('names each notice by the event row id and replays what a resuming stream missed', async () => {
    const p = await createProject(app, 'resume')
    const url = `${base}/ui/live?project=${p.id}`
    const first = await openSse(url, { cookie: ui.cookie })
    let seen: string
    try {
      expect((await send(p.id, p.key, eid(1), 'before the drop')).status).toBe(200)
      const msg = await first.next(5000)
      expect(msg?.event).toBe('stored')
      expect(msg?.id).toMatch(/^\d+$/)
      seen = msg?.id ?? ''
    } finally {
      first.close()
    }
    // Stored while no stream was open: the resume must deliver both, in order, once each.
    for (const n of [2, 3])
      expect((await send(p.id, p.key, eid(n), `missed ${n}`)).status).toBe(200)
    const resumed = await openSse(url, { cookie: ui.cookie, 'last-event-id': seen })
    try {
      const replayed = [await resumed.next(5000), await resumed.next(5000)]
      expect(replayed.map((m) => JSON.parse(m?.data ?? '{}').eventId)).toEqual([eid(2), eid(3)])
      expect(replayed.map((m) => JSON.parse(m?.data ?? '{}').replayed)).toEqual([true, true])
      const ids = replayed.map((m) => Number(m?.id))
      expect(ids[0]).toBeGreaterThan(Number(seen))
      expect(ids[1]).toBeGreaterThan(ids[0] ?? Number.POSITIVE_INFINITY)
      // Live again after the replay, with a later id and no repeat of the replayed ones.
      expect((await send(p.id, p.key, eid(4), 'live again')).status).toBe(200)
      const live = await resumed.next(5000)
      expect(JSON.parse(live?.data ?? '{}')).toMatchObject({ eventId: eid(4) })
      expect(Number(live?.id)).toBeGreaterThan(ids[1] ?? Number.POSITIVE_INFINITY)
    } finally {
      resumed.close()
    }
  })

  it('replays at most the newest 100 missed notices', async () => {
    const p = await createProject(app, 'resume-bound')
    const url = `${base}/ui/live?project=${p.id}`
    for (let n = 1; n <= 105; n++)
      expect((await send(p.id, p.key, eid(1000 + n), `m${n}`)).status).toBe(200)
    const resumed = await openSse(url, { cookie: ui.cookie, 'last-event-id': '0' })
    try {
      const got: string[] = []
      for (;;) {
        const m = await resumed.next(got.length < REPLAY_LIMIT ? 5000 : 300)
        if (m === undefined) break
        got.push(JSON.parse(m.data).eventId)
      }
      expect(got).toHaveLength(REPLAY_LIMIT)
      expect(got[0]).toBe(eid(1006))
      expect(got.at(-1)).toBe(eid(1105))
    } finally {
      resumed.close()
    }
  })

  it('refuses the stream without a session and for an unknown project', async () => {
    const anon = await fetch(`${base}/ui/live?project=1`, {
      headers: { accept: 'text/event-stream' },
    })
    expect(anon.status).toBe(401)
    await anon.body?.cancel()
    const missing = await fetch(`${base}/ui/live?project=999999`, {
      headers: { cookie: ui.cookie },
    })
    expect(missing.status).toBe(404)
    await missing.body?.cancel()
  })

  it('closes open streams when the server shuts down', async () => {
    const other = await testApp()
    await createUser(other)
    const client = await signIn(other)
    const p = await createProject(other, 'closing')
    await other.listen({ host: '127.0.0.1', port: 0 })
    const url = `http://127.0.0.1:${(other.server.address() as AddressInfo).port}`
    const res = await fetch(`${url}/ui/live?project=${p.id}`, {
      headers: { cookie: client.cookie },
    })
    const reader = (res.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    // close() ends the open stream rather than waiting for it (a hang fails the test's timeout).
    await other.close()
    let done = false
    while (!done) done = (await reader.read()).done
    expect(done).toBe(true)
  })
})
