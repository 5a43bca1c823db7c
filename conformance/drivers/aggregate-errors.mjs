// The exception-groups scenario of the JavaScript drivers (the Node script and the browser
// page), written once: batches whose items all fail, thrown as one AggregateError, which the
// SDK's linked-errors integration sends as an exception group. Each kind of member is thrown
// from one line, so its stack is the same in every batch.

/** The batches: two of copies of one error, then the same two errors in another order and count. */
const BATCHES = [
  ['same', [1, 2]],
  ['same', [3]],
  ['mixed', [4, 'a']],
  ['mixed', ['a', 5, 6]],
]

function check(item) {
  if (typeof item === 'string') throw new TypeError(`unknown sku ${item}`)
  throw new RangeError(`bad item ${item}`)
}

function batch(items) {
  const errors = []
  for (const item of items) {
    try {
      check(item)
    } catch (error) {
      errors.push(error)
    }
  }
  throw new AggregateError(errors, 'batch failed')
}

/**
 * Captures every batch's AggregateError with `capture` (synchronously, in one loop: an await
 * between them would change the later stacks) and returns the event ids by label.
 */
export function captureBatches(capture) {
  const groups = { same: [], mixed: [] }
  for (const [label, items] of BATCHES) {
    try {
      batch(items)
    } catch (error) {
      groups[label].push(capture(error))
    }
  }
  return groups
}
