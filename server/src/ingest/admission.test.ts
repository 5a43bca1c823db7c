import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.ts'
import { AdmissionController, LAG_MIN_UNITS, MIN_UNITS } from './admission.ts'
import { LoopLag } from './admission-lag.ts'

const limits = {
  maxInflightBytes: 1000,
  maxQueuedUnits: 500,
  targetLatencyMs: 100,
  retryAfterSeconds: 3,
}

describe('AdmissionController', () => {
  it('holds bytes against the budget and refuses past it with 429 + Retry-After', () => {
    const a = new AdmissionController(limits)
    const r1 = a.reserveBytes()
    const r2 = a.reserveBytes()
    r1.add(600)
    expect(() => r2.add(500)).toThrowError(ApiError)
    try {
      r2.add(500)
    } catch (err) {
      expect((err as ApiError).status).toBe(429)
      expect((err as ApiError).headers['retry-after']).toBe('3')
      expect((err as ApiError).headers['x-sentry-rate-limits']).toBe('3::organization:overloaded')
    }
    r1.release()
    r1.release()
    r2.add(500)
    expect(a.usage().bytes).toBe(500)
  })

  it('bounds the queue by the measured commit rate times the target latency', async () => {
    const a = new AdmissionController(limits)
    expect(a.unitBound()).toBe(MIN_UNITS)
    // Units committing quickly for longer than a rate window raise the bound above the minimum.
    const start = performance.now()
    while (performance.now() - start < 400) {
      const leaves = Array.from({ length: 16 }, () => a.enter())
      await Promise.resolve()
      for (const leave of leaves) leave()
    }
    expect(a.unitBound()).toBeGreaterThan(MIN_UNITS)
    expect(a.unitBound()).toBeLessThanOrEqual(limits.maxQueuedUnits)
  })

  it('keeps the measured capacity through quiet windows and lowers it only from a full queue', () => {
    let t = 0
    const clock = () => t
    const a = new AdmissionController({ ...limits, maxQueuedUnits: 5000 }, undefined, clock)
    // 40 units every 10 ms (4,000/s) with at most 8 in flight: the bound rises to about 400.
    const burst = (units: number, ms: number, together: number) => {
      for (let done = 0; done < units; done += together) {
        const leaves = Array.from({ length: together }, () => a.enter())
        t += (ms * together) / units
        for (const leave of leaves) leave()
      }
    }
    burst(1200, 300, 8)
    const high = a.unitBound()
    expect(high).toBeGreaterThan(350)
    // Ten seconds of a trickle (10/s): the clients sent little, which says nothing of what the
    // committer can take, so the bound stays.
    burst(100, 10_000, 1)
    expect(a.unitBound()).toBe(high)
    // A queue held over half its bound while the commits slow to 1,000/s: the capacity fell.
    burst(3000, 3000, 200)
    expect(a.unitBound()).toBeLessThan(high)
    expect(a.unitBound()).toBeGreaterThanOrEqual(MIN_UNITS)
  })

  it('sheds at once when the queue holds its bound, and admits again when it drains', async () => {
    const a = new AdmissionController({ ...limits, maxQueuedUnits: 2 })
    const held = [a.enter(), a.enter()]
    expect(() => a.enter()).toThrowError(expect.objectContaining({ status: 429 }))
    for (const leave of held) {
      leave()
      leave()
    }
    expect(a.usage().units).toBe(0)
    a.enter()()
  })

  it('sheds on the main thread lag only while enough ingest requests are in flight', () => {
    let t = 0
    const lag = new LoopLag(50, () => t, 10)
    const a = new AdmissionController(limits, lag)
    // A thread far behind (ticks 200 ms late) ...
    for (let i = 0; i < 20; i++) {
      t += 210
      lag.sample()
    }
    // ... with few ingest requests in flight is busy with something else: nothing is shed.
    const held = Array.from({ length: LAG_MIN_UNITS - 1 }, () => a.enter())
    expect(Array.from({ length: 50 }, () => a.overloaded()).some(Boolean)).toBe(false)
    // With enough in flight, most new requests are shed; the queue bound is not reached.
    held.push(a.enter())
    expect(a.usage().units).toBeLessThan(a.unitBound())
    const shed = Array.from({ length: 100 }, () => a.overloaded()).filter(Boolean).length
    expect(shed).toBeGreaterThan(80)
    // Once the ticks are on time again, everything is admitted.
    for (let i = 0; i < 25; i++) {
      t += 10
      lag.sample()
    }
    expect(Array.from({ length: 50 }, () => a.overloaded()).some(Boolean)).toBe(false)
    for (const leave of held) leave()
  })
})
