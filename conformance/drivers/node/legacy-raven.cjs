// The legacy raven-node client (2.6.4, the last release) reporting an exception with a request
// that holds secrets and a message, as an old Node app still does. Reads the DSN from
// SENTRY_TEST_DSN; prints one JSON line: {"event_ids": [exception, message]}.
const Raven = require('raven')

const client = new Raven.Client(process.env.SENTRY_TEST_DSN, {
  release: 'raven-node-app@2.6.4',
  environment: 'legacy',
})

function charge(order) {
  if (order.items === 0) throw new TypeError(`order ${order.id} has no items`)
}

const capture = (fn) =>
  new Promise((resolve, reject) => fn((err, id) => (err ? reject(err) : resolve(id))))

async function main() {
  let error
  try {
    charge({ id: 'B-9', items: 0 })
  } catch (e) {
    error = e
  }
  const excId = await capture((done) =>
    client.captureException(
      error,
      {
        req: {
          method: 'POST',
          url: '/checkout',
          headers: { host: 'shop.example', authorization: 'Bearer raven-node-7d1' },
          body: { user: 'bob', password: 'raven-node-pw-7d2' },
        },
      },
      done,
    ),
  )
  const msgId = await capture((done) =>
    client.captureMessage('inventory sync stalled', { level: 'warning' }, done),
  )
  console.log(JSON.stringify({ event_ids: [excId, msgId] }))
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
