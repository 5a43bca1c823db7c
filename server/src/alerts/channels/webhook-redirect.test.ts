import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fetch } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AlertMessage } from '../message.ts'
import { SendError } from './send-error.ts'
import { sendWebhook } from './webhook.ts'
import { PrivateTargetError, webhookDispatcher } from './webhook-target.ts'

/** A loopback HTTP server answering every request with `answer`; counts what it received. */
async function serve(answer: (res: import('node:http').ServerResponse) => void) {
  let hits = 0
  const server: Server = createServer((req, res) => {
    hits++
    req.resume()
    req.on('end', () => answer(res))
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    hits: () => hits,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

const message = {
  trigger: 'new_issue',
  rule: { id: 1, name: 'r' },
  project: { id: 1, slug: 'p', name: 'P' },
  issue: {
    title: 'Error: x',
    culprit: 'app.js',
    level: 'error',
    count: 1,
    first_seen: '2026-01-01T00:00:00Z',
    last_seen: '2026-01-01T00:00:00Z',
    url: 'http://ui/issues/1',
  },
  event: null,
  triggered_at: '2026-01-01T00:00:00Z',
} as unknown as AlertMessage

const send = (url: string, allowPrivate: boolean) =>
  sendWebhook({ type: 'webhook', url, format: 'json' }, message, 1, {
    timeoutMs: 5_000,
    signal: new AbortController().signal,
    allowPrivate,
  })

describe('webhook deliveries cannot be turned against the inside', () => {
  let inside: Awaited<ReturnType<typeof serve>>
  let redirector: Awaited<ReturnType<typeof serve>>
  beforeAll(async () => {
    // The "internal service" (a metadata endpoint, say) and a hook that redirects to it. Both
    // are on loopback, so the sends below allow private targets, as the tests' receivers need:
    // the first hop is allowed, the redirect still is not followed.
    inside = await serve((res) => res.writeHead(204).end())
    redirector = await serve((res) =>
      res.writeHead(302, { location: `http://127.0.0.1:${inside.port}/latest/meta-data/` }).end(),
    )
  })
  afterAll(async () => {
    await inside.close()
    await redirector.close()
  })

  it('delivers to the target itself (positive control)', async () => {
    await send(inside.url, true)
    expect(inside.hits()).toBe(1)
  })

  it('treats a redirect as a failed, permanent delivery and never follows it', async () => {
    const before = inside.hits()
    const err = await send(redirector.url, true).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(err).toBeInstanceOf(SendError)
    expect((err as SendError).permanent).toBe(true)
    expect((err as SendError).message).toBe(
      `webhook answered HTTP 302 (redirects are not followed: http://127.0.0.1:${inside.port}/latest/meta-data/)`,
    )
    expect(redirector.hits()).toBe(1)
    expect(inside.hits()).toBe(before)
  })

  it('connects only to an address its own lookup checked', async () => {
    // `localhost` resolves to loopback: the guarded dispatcher refuses to connect there, and
    // the same request through the allowing dispatcher reaches the server (positive control).
    const url = `http://localhost:${inside.port}/`
    const before = inside.hits()
    const refused = await fetch(url, { dispatcher: webhookDispatcher(false) }).then(
      () => undefined,
      (e: unknown) => e,
    )
    expect((refused as { cause?: unknown }).cause).toBeInstanceOf(PrivateTargetError)
    expect(inside.hits()).toBe(before)
    const allowed = await fetch(url, { dispatcher: webhookDispatcher(true) })
    expect(allowed.status).toBe(204)
    expect(inside.hits()).toBe(before + 1)
  })
})
