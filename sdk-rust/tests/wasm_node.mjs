// Runs the wasm32 build of examples/wasm_node.rs (after `wasm-bindgen --target nodejs`)
// in Node against a loopback capture server and checks what arrives on the wire.
//
//   node tests/wasm_node.mjs <dir with wasm_node.js>
//
// Exits non-zero with a message when a check fails.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import path from 'node:path'

const pkgDir = process.argv[2]
if (!pkgDir) {
  console.error('usage: node tests/wasm_node.mjs <wasm-bindgen output dir>')
  process.exit(2)
}

/** Splits an envelope body into its header and JSON items, honouring `length`. */
export function parseEnvelope(buf) {
  let nl = buf.indexOf(10)
  const header = JSON.parse(buf.subarray(0, nl).toString('utf8'))
  let pos = nl + 1
  const items = []
  while (pos < buf.length) {
    nl = buf.indexOf(10, pos)
    assert.ok(nl > pos, 'item header line')
    const itemHeader = JSON.parse(buf.subarray(pos, nl).toString('utf8'))
    assert.equal(typeof itemHeader.length, 'number', 'items carry an explicit length')
    const start = nl + 1
    const end = start + itemHeader.length
    assert.ok(end <= buf.length, 'payload fits in the body')
    items.push({ header: itemHeader, payload: JSON.parse(buf.subarray(start, end).toString('utf8')) })
    assert.equal(buf[end], 10, 'payload is followed by a newline')
    pos = end + 1
  }
  return { header, items }
}

const requests = []
const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    requests.push({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks) })
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{}')
  })
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address()

try {
  const require = createRequire(import.meta.url)
  const wasm = require(path.resolve(pkgDir, 'wasm_node.js'))
  const groups = JSON.parse(await wasm.run(`http://abc123@127.0.0.1:${port}/42`, 'error'))
  assert.equal(groups.exception.length, 1)
  const [eventId] = groups.exception
  assert.match(eventId, /^[0-9a-f]{32}$/)

  // The returned promise resolves only after close_async flushed: no timer may be left
  // armed (it would keep Node alive), and every envelope must already have arrived.
  assert.ok(!process.getActiveResourcesInfo().includes('Timeout'), 'flush timer cleared')
  assert.equal(requests.length, 2, 'event envelope, then the exited session')

  for (const r of requests) {
    assert.equal(r.method, 'POST')
    assert.equal(r.url, '/api/42/envelope/')
    assert.match(
      r.headers['x-sentry-auth'],
      /^Sentry sentry_key=abc123, sentry_version=7, sentry_client=ingest\.rust\/\d+\.\d+\.\d+$/,
    )
    assert.equal(r.headers['content-type'], 'application/x-sentry-envelope')
  }

  const first = parseEnvelope(requests[0].body)
  assert.deepEqual(first.header, { event_id: eventId })
  assert.deepEqual(
    first.items.map((i) => i.header.type),
    ['event', 'session'],
  )
  const event = first.items[0].payload
  assert.equal(event.event_id, eventId)
  assert.equal(event.platform, 'native')
  assert.equal(event.level, 'error')
  assert.equal(event.release, 'wasm-conformance@1.0.0')
  assert.equal(event.environment, 'test')
  assert.equal(event.sdk.name, 'ingest.rust')
  assert.deepEqual(event.tags, { runtime: 'wasm' })
  assert.ok(event.timestamp > 1_700_000_000 && event.timestamp < 4_000_000_000, 'unix seconds')
  const [exception] = event.exception.values
  assert.equal(exception.type, 'wasm_node::ConformanceError')
  assert.equal(exception.value, 'conformance boom')
  assert.deepEqual(exception.mechanism, { type: 'generic', handled: true })
  assert.deepEqual(
    event.breadcrumbs.values.map((b) => b.message),
    ['wasm breadcrumb'],
  )

  const opened = first.items[1].payload
  assert.equal(opened.init, true)
  assert.equal(opened.status, 'ok')
  assert.equal(opened.errors, 1)
  assert.match(opened.started, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  assert.deepEqual(opened.attrs, { release: 'wasm-conformance@1.0.0', environment: 'test' })

  const second = parseEnvelope(requests[1].body)
  assert.deepEqual(second.header, {})
  assert.equal(second.items.length, 1)
  const closed = second.items[0].payload
  assert.equal(second.items[0].header.type, 'session')
  assert.equal(closed.sid, opened.sid)
  assert.equal(closed.init, false)
  assert.equal(closed.status, 'exited')
  assert.equal(closed.errors, 1)
  assert.equal(typeof closed.duration, 'number')

  const invalid = await wasm.run('ftp://abc123@127.0.0.1/42', 'error').then(
    () => 'resolved',
    (err) => String(err),
  )
  assert.match(invalid, /invalid DSN: scheme `ftp`/)
  console.log('wasm-node: ok (event and session envelopes verified)')
} finally {
  server.close()
}
