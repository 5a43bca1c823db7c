// A small Fastify shop with the stock @sentry/node integration: a user from the auth header, a
// route that fails for its order and Sentry's Fastify error handler. Started as documented
// (`node --import ../express/instrument.mjs app.mjs`: the same instrument file as the Express
// app) and speaking the protocol of ../web-app.mjs on its standard streams.
import { createInterface } from 'node:readline'
import Fastify from 'fastify'

const sdk = process.env.CONFORMANCE_SENTRY_PACKAGE || '@sentry/node'
const Sentry = await import(sdk)

const app = Fastify()
Sentry.setupFastifyErrorHandler(app)
let open = 0
app.addHook('onRequest', async (request, reply) => {
  open++
  reply.raw.once('close', () => open--)
  // What an auth hook does: the signed-in user goes on the request's scope.
  Sentry.setUser({ id: request.headers['x-conformance-user'] })
})
app.get('/health', async () => 'ok')
function loadOrder(id) {
  throw new Error(`order ${id} could not be loaded`)
}
app.get('/orders/:id', async (request) => {
  console.warn(`loading order ${request.params.id}`)
  return loadOrder(request.params.id)
})

await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`${JSON.stringify({ listening: app.server.address().port })}\n`)

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line.trim() !== 'flush') return
  // A request's session is recorded when its response closes: wait for the last one.
  while (open > 0) await new Promise((resolve) => setTimeout(resolve, 10))
  const flushed = await Sentry.close(5000)
  const version = Sentry.SDK_VERSION
  process.stdout.write(`${JSON.stringify({ flushed, sdk: { package: sdk, version } })}\n`)
  await app.close()
  process.exit(0)
})
