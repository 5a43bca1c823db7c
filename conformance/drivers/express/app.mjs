// A small Express shop with the stock @sentry/node integration: a user from the auth header,
// a route that fails for its order, Sentry's error handler, then the app's own. Started as
// documented (`node --import ./instrument.mjs app.mjs`) or, with CONFORMANCE_INIT=late, in the
// wrong order: Express imported first and the instrument file after it. Speaks the protocol of
// ../web-app.mjs on its standard streams.
import { createInterface } from 'node:readline'

const express = (await import(process.env.CONFORMANCE_EXPRESS_PACKAGE || 'express')).default
if (process.env.CONFORMANCE_INIT === 'late') await import('./instrument.mjs')
const sdk = process.env.CONFORMANCE_SENTRY_PACKAGE || '@sentry/node'
const Sentry = await import(sdk)

const app = express()
let open = 0
app.use((req, res, next) => {
  open++
  res.once('close', () => open--)
  // What an auth middleware does: the signed-in user goes on the request's scope.
  Sentry.setUser({ id: req.get('x-conformance-user') })
  next()
})
app.get('/health', (_req, res) => {
  res.send('ok')
})
function loadOrder(id) {
  throw new Error(`order ${id} could not be loaded`)
}
app.get('/orders/:id', (req, res) => {
  console.warn(`loading order ${req.params.id}`)
  res.json(loadOrder(req.params.id))
})
Sentry.setupExpressErrorHandler(app)
app.use((_err, _req, res, _next) => {
  res.status(500).send('failed')
})

const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`)
})

createInterface({ input: process.stdin }).on('line', async (line) => {
  if (line.trim() !== 'flush') return
  // A request's session is recorded when its response closes: wait for the last one.
  while (open > 0) await new Promise((resolve) => setTimeout(resolve, 10))
  // A graceful shutdown: close() flushes the events and the session aggregates (8.x sends
  // those only on close).
  const flushed = await Sentry.close(5000)
  const version = Sentry.SDK_VERSION
  process.stdout.write(`${JSON.stringify({ flushed, sdk: { package: sdk, version } })}\n`)
  server.close()
  process.exit(0)
})
