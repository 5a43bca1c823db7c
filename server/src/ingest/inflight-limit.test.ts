import { describe, expect, it } from 'vitest'
import { InflightLimit, MIN_INFLIGHT } from './inflight-limit.ts'

/** A clock the test moves by hand. */
function clock() {
  let t = 1000
  return { now: () => t, advance: (ms: number) => (t += ms) }
}

/** Lets `n` requests in (as many as the limit allows), then finishes them after `ms` each. */
function round(l: InflightLimit, c: ReturnType<typeof clock>, n: number, ms: number): number {
  const since: number[] = []
  for (let i = 0; i < n; i++) if (l.tryEnter()) since.push(l.clock())
  c.advance(ms)
  for (const s of since) l.leave(s)
  return since.length
}

describe('InflightLimit', () => {
  it('refuses past the limit and lets in again once a place is given back', () => {
    const c = clock()
    const l = new InflightLimit(3, 50, c.now, () => 1)
    const a = l.clock()
    expect([l.tryEnter(), l.tryEnter(), l.tryEnter(), l.tryEnter()]).toEqual([
      true,
      true,
      true,
      false,
    ])
    expect(l.usage()).toEqual({ inflight: 3, limit: 3 })
    l.leave(a)
    expect(l.tryEnter()).toBe(true)
  })

  it('shrinks while requests take longer than the target, never below the floor', () => {
    const c = clock()
    const l = new InflightLimit(256, 50, c.now, () => 1)
    // 100 ms windows whose requests took 100 ms. One late window alone changes nothing.
    expect(round(l, c, 500, 100)).toBe(256)
    expect(l.usage().limit).toBe(256)
    // The second in a row cuts, by at most 25 %.
    round(l, c, 500, 100)
    expect(l.usage().limit).toBe(192)
    for (let i = 0; i < 20; i++) round(l, c, 500, 100)
    expect(l.usage().limit).toBe(MIN_INFLIGHT)
  })

  it('ignores one late window between good ones', () => {
    const c = clock()
    const l = new InflightLimit(256, 50, c.now, () => 1)
    // One request per 100 ms window, alternately 10 ms and 200 ms in flight.
    const win = (ms: number) => {
      c.advance(100 - Math.min(ms, 100))
      round(l, c, 1, ms)
    }
    for (let i = 0; i < 10; i++) {
      win(10)
      win(200)
    }
    expect(l.usage().limit).toBe(256)
    win(200)
    expect(l.usage().limit).toBeLessThan(256)
  })

  it('does not shrink while the main thread had idle time (the wait was elsewhere)', () => {
    const c = clock()
    const l = new InflightLimit(256, 50, c.now, () => 0.5)
    for (let i = 0; i < 20; i++) round(l, c, 500, 100)
    expect(l.usage().limit).toBe(256)
  })

  it('grows back under the target only while the limit is what bounds the requests', () => {
    const c = clock()
    const l = new InflightLimit(256, 50, c.now, () => 1)
    for (let i = 0; i < 20; i++) round(l, c, 500, 100)
    expect(l.usage().limit).toBe(MIN_INFLIGHT)
    // Few requests, fast: the limit was not reached, so it stays.
    for (let i = 0; i < 5; i++) round(l, c, 2, 100)
    expect(l.usage().limit).toBe(MIN_INFLIGHT)
    // Many requests, fast (the 100 ms are spent waiting between windows, not in flight): +25 %
    // per window up to the ceiling.
    for (let i = 0; i < 40; i++) {
      const since: number[] = []
      for (let k = 0; k < 500; k++) if (l.tryEnter()) since.push(l.clock())
      c.advance(10)
      for (const s of since) l.leave(s)
      c.advance(90)
    }
    expect(l.usage().limit).toBe(256)
  })

  it('counts a trickling client as at most four targets', () => {
    const c = clock()
    const l = new InflightLimit(100, 50, c.now, () => 1)
    // 99 requests of 10 ms and one of 30 s: the mean of capped samples stays under the target.
    const since: number[] = []
    for (let k = 0; k < 100; k++) if (l.tryEnter()) since.push(l.clock())
    c.advance(10)
    for (const s of since.slice(1)) l.leave(s)
    c.advance(30_000)
    l.leave(since[0] as number)
    expect(l.usage().limit).toBe(100)
  })

  it('0 means no limit', () => {
    const l = new InflightLimit(0, 50)
    let admitted = 0
    for (let i = 0; i < 10_000; i++) if (l.tryEnter()) admitted++
    expect(admitted).toBe(10_000)
  })
})
