// A small Hono shop on Node (@hono/node-server) with the stock @sentry/node integration:
// Sentry's Hono middleware first (`app.use(Sentry.honoMiddleware(app))`, as its docs set it up
// for Node), a user from the auth header, a route that fails for its order. Started as
// documented (`node --import ../express/instrument.mjs app.mjs`: the same instrument file as the
// Express app) and speaking the protocol of ../web-app.mjs on its standard streams.
import { createInterface } from 'node:readline'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'

const sdk = process.env.CONFORMANCE_SENTRY_PACKAGE || '@sentry/node'
const Sentry = await import(sdk)

const app = new Hono()
app.use(Sentry.honoMiddleware(app))
let open = 0
app.use(async (c, next) => {
  open++
  c.env.outgoing.once('close', () => open--)
  // What an auth middleware does: the signed-in user goes on the request's scope.
  Sentry.setUser({ id: c.req.header('x-conformance-user') })
  await next()
})
app.get('/health', (c) => c.text('ok'))
function loadOrder(id) {
  throw new Error(`order ${id} could not be loaded`)
}
app.get('/orders/:id', (c) => {
  console.warn(`loading order ${c.req.param('id')}`)
  return c.json(loadOrder(c.req.param('id')))
})
// Hono's own answer to an unhandled error, without its console log.
app.onError((_err, c) => c.text('failed', 500))

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`${JSON.stringify({ listening: info.port })}\n`)
})

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line.trim() !== 'flush') return
  // A request's session is recorded when its response closes: wait for the last one.
  while (open > 0) await new Promise((resolve) => setTimeout(resolve, 10))
  const flushed = await Sentry.close(5000)
  const version = Sentry.SDK_VERSION
  process.stdout.write(`${JSON.stringify({ flushed, sdk: { package: sdk, version } })}\n`)
  server.close()
  process.exit(0)
})
