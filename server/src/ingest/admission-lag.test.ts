import { describe, expect, it } from 'vitest'
import { LoopLag, MIN_SHARE } from './admission-lag.ts'

/** A clock the test moves by hand; every tick of the timer is `advance(...)` then `sample()`. */
function clock() {
  let t = 1000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

const admitted = (lag: LoopLag, n: number) =>
  Array.from({ length: n }, () => lag.admit()).filter(Boolean).length

describe('LoopLag', () => {
  it('admits everything while ticks are on time', () => {
    const c = clock()
    const lag = new LoopLag(50, c.now, 10)
    for (let i = 0; i < 20; i++) {
      c.advance(12)
      lag.sample()
    }
    expect(admitted(lag, 100)).toBe(100)
    expect(lag.reading().share).toBe(1)
  })

  it('cuts the admitted share while ticks are late, never below the floor, spread evenly', () => {
    const c = clock()
    const lag = new LoopLag(50, c.now, 10)
    // One late tick alone (a GC pause) changes nothing; the second in a row cuts.
    c.advance(10 + 80)
    lag.sample()
    expect(lag.reading().share).toBe(1)
    c.advance(10 + 80)
    lag.sample()
    expect(lag.reading().share).toBeCloseTo(0.7)
    // Floating-point credit may land one short.
    expect(admitted(lag, 100)).toBeGreaterThanOrEqual(69)
    expect(admitted(lag, 100)).toBeLessThanOrEqual(71)
    for (let i = 0; i < 50; i++) {
      c.advance(10 + 80)
      lag.sample()
    }
    expect(lag.reading().share).toBe(MIN_SHARE)
    expect(Math.abs(admitted(lag, 100) - 100 * MIN_SHARE)).toBeLessThanOrEqual(1)
  })

  it('sheds what arrives late in one long loop iteration, before the tick can report it', () => {
    const c = clock()
    const lag = new LoopLag(50, c.now, 10)
    c.advance(10)
    lag.sample()
    c.advance(10 + 2 * 50 - 1)
    expect(lag.admit()).toBe(true)
    c.advance(2)
    expect(lag.admit()).toBe(false)
  })

  it('admits everything again within about 20 calm ticks after the overload ends', () => {
    const c = clock()
    const lag = new LoopLag(50, c.now, 10)
    for (let i = 0; i < 30; i++) {
      c.advance(10 + 200)
      lag.sample()
    }
    expect(admitted(lag, 100)).toBeLessThan(10)
    let ticks = 0
    while (lag.reading().share < 1 && ticks < 100) {
      c.advance(10)
      lag.sample()
      ticks++
    }
    expect(ticks).toBeLessThanOrEqual(20)
    expect(admitted(lag, 100)).toBe(100)
  })

  it('holds the share while the delay sits between half the bound and the bound', () => {
    const c = clock()
    const lag = new LoopLag(50, c.now, 10)
    c.advance(10 + 60)
    lag.sample()
    c.advance(10 + 60)
    lag.sample()
    const cut = lag.reading().share
    for (let i = 0; i < 10; i++) {
      c.advance(10 + 40)
      lag.sample()
    }
    expect(lag.reading().share).toBe(cut)
  })
})
