// A small Koa shop with the stock @sentry/node integration: Sentry's Koa error handler first (as
// its docs set it up), a user from the auth header, @koa/router's route that fails for its
// order. Started as documented (`node --import ../express/instrument.mjs app.mjs`: the same
// instrument file as the Express app) and speaking the protocol of ../web-app.mjs on its
// standard streams.
import { createServer } from 'node:http'
import { createInterface } from 'node:readline'
import Router from '@koa/router'
import Koa from 'koa'

const sdk = process.env.CONFORMANCE_SENTRY_PACKAGE || '@sentry/node'
const Sentry = await import(sdk)

const app = new Koa()
Sentry.setupKoaErrorHandler(app)
let open = 0
app.use(async (ctx, next) => {
  open++
  ctx.res.once('close', () => open--)
  // What an auth middleware does: the signed-in user goes on the request's scope.
  Sentry.setUser({ id: ctx.get('x-conformance-user') })
  await next()
})
const router = new Router()
router.get('/health', (ctx) => {
  ctx.body = 'ok'
})
function loadOrder(id) {
  throw new Error(`order ${id} could not be loaded`)
}
router.get('/orders/:id', (ctx) => {
  console.warn(`loading order ${ctx.params.id}`)
  ctx.body = loadOrder(ctx.params.id)
})
app.use(router.routes())
// Koa answers an unhandled error 500 and logs it; the log says nothing the harness reads.
app.silent = true

const server = createServer(app.callback())
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ listening: server.address().port })}\n`)
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
