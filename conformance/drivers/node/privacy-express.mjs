// Conformance driver for server-side scrubbing with a stock @sentry/node and a real Express
// app, as a new user writes it: `Sentry.init` first (here before Express is required, which is
// what `--import ./instrument.mjs` achieves), `sendDefaultPii: false`, the SDK's Express error
// handler. A `POST /login` handler throws while its JSON body holds a password and a card
// number; the request comes from this process with an Authorization header and cookies.
//
//   SENTRY_TEST_DSN=… node conformance/drivers/node/privacy-express.mjs
//
// Prints one JSON line: {"event_ids": [...]}.
import { once } from 'node:events'
import { createRequire } from 'node:module'
import * as Sentry from '@sentry/node'

const secret = 'hunter2-privacy-7f3a'
const card = '4111 1111 1111 1111'
const dsn = process.env.SENTRY_TEST_DSN
if (dsn === undefined) throw new Error('SENTRY_TEST_DSN is not set')

const ids = []
Sentry.init({
  dsn,
  sendDefaultPii: false,
  release: 'privacy-express@1.0.0',
  beforeSend(event) {
    if (event.event_id !== undefined) ids.push(event.event_id)
    return event
  },
})

// Required after init, so the SDK's instrumentation sees it (CommonJS, require-in-the-middle).
const require = createRequire(import.meta.url)
const express = require('express')

const app = express()
app.use(express.json())
app.post('/login', (req, _res) => {
  const { password } = req.body
  throw new Error(`login failed: card ${req.body.card} rejected (password=${password})`)
})
Sentry.setupExpressErrorHandler(app)
app.use((_err, _req, res, _next) => res.status(500).send('failed'))

const server = app.listen(0, '127.0.0.1')
await once(server, 'listening')
const { port } = server.address()
const res = await fetch(`http://127.0.0.1:${port}/login?token=${secret}-query`, {
  method: 'POST',
  headers: {
    'content-type': 'application/json',
    authorization: `Bearer ${secret}-bearer`,
    cookie: `sessionid=${secret}-cookie; theme=dark`,
  },
  body: JSON.stringify({ username: 'bob', password: secret, card }),
})
await res.text()
await Sentry.flush(5000)
server.close()
console.log(JSON.stringify({ event_ids: ids }))
