import { describe, expect, it } from 'vitest'
import { LockTurns } from './lock-turns.ts'

describe('LockTurns', () => {
  it('lets groups sharing a key go in the order they asked, others at once', async () => {
    const turns = new LockTurns()
    const order: string[] = []
    const first = await turns.enter(['a'])
    const second = turns.enter(['a', 'b']).then((taken) => {
      order.push('second')
      taken()
    })
    const other = turns.enter(['c']).then((taken) => {
      order.push('other')
      taken()
    })
    await other
    expect(order).toEqual(['other'])
    order.push('first')
    first()
    await second
    expect(order).toEqual(['other', 'first', 'second'])
    // Nothing is left waiting: a new group of the same keys goes at once.
    const again = await turns.enter(['a', 'b'])
    again()
  })
})
