import { describe, expect, it } from 'vitest'
import { clockDrift } from '../../event/clock.ts'
import { digestClientEvent, digestScope } from './event.ts'

const RECEIVED = 1_795_000_000

describe('the digest of a client event', () => {
  it("tags the key's label as component after scrubbing, so a label is never filtered", () => {
    const scope = digestScope(7, 3, 'auth-service', Date.now(), null)
    const r = digestClientEvent(
      { message: 'checkout failed', extra: { note: 'auth-service' } },
      scope,
    )
    if ('filtered' in r) throw new Error('filtered')
    expect(r.row.tags).toContainEqual(['component', 'auth-service'])
    // The same words from the client are scrubbed (Relay's password rule on a value).
    expect(r.event.extra).toEqual({ note: '[Filtered]' })
  })

  it('leaves the installed packages (modules) as sent', () => {
    const modules = { 'golang.org/x/oauth2': 'v0.30.0', 'next-auth': '4.24.7' }
    const scope = digestScope(7, 3, null, Date.now(), null)
    const r = digestClientEvent({ message: 'm', modules }, scope)
    if ('filtered' in r) throw new Error('filtered')
    expect(JSON.parse(String(r.row.payload)).modules).toEqual(modules)
  })
})

describe('drift correction, then the bounds (the digest of a client event)', () => {
  /** The scope of an envelope sent by a clock `behind` seconds behind (negative: ahead). */
  const scope = (behind: number) => {
    const sentAt = new Date((RECEIVED - behind) * 1000).toISOString()
    const drift = clockDrift(sentAt, RECEIVED * 1000)
    return digestScope(1, 1, null, RECEIVED * 1000, null, undefined, drift)
  }
  const digest = (raw: Record<string, unknown>, behind: number) => {
    const r = digestClientEvent(raw, scope(behind))
    if ('filtered' in r) throw new Error('filtered')
    return r.event
  }

  it('dates an event from a device 2 h behind when it happened, not 2 h back', () => {
    const e = digest({ timestamp: RECEIVED - 7200 - 600, message: 'm' }, 7200)
    expect(e.timestamp).toBe(RECEIVED - 600)
    expect(e.errors?.map((n) => n.type)).toEqual(['clock_drift'])
  })

  it('keeps an event from a clock 10 min behind as sent (under the threshold, no drift)', () => {
    const e = digest({ timestamp: RECEIVED - 600 - 5, message: 'm' }, 600)
    expect(e.timestamp).toBe(RECEIVED - 605)
    expect(e.errors).toBeUndefined()
  })

  it('still bounds a corrected time out of range: dated when it arrived, both notes', () => {
    const e = digest({ timestamp: RECEIVED - 40 * 86400 - 7200, message: 'm' }, 7200)
    expect(e.timestamp).toBe(RECEIVED)
    expect(e.errors?.map((n) => n.type)).toEqual(['clock_drift', 'past_timestamp'])
    // The bound's note holds the corrected time, as Relay's does.
    expect(e.errors?.[1]?.sdk_time).toBe(new Date((RECEIVED - 40 * 86400) * 1000).toISOString())
  })

  it('an event 2 h ahead from a clock 2 h ahead is no future event', () => {
    const e = digest({ timestamp: RECEIVED + 7200 - 1, message: 'm' }, -7200)
    expect(e.timestamp).toBe(RECEIVED - 1)
    expect(e.errors?.map((n) => n.type)).toEqual(['clock_drift'])
  })

  it('keeps an OTLP record’s time (keepTime) whatever the drift', () => {
    const r = digestClientEvent(
      { timestamp: RECEIVED - 7200, message: 'm' },
      scope(7200),
      undefined,
      true,
    )
    if ('filtered' in r) throw new Error('filtered')
    expect(r.event.timestamp).toBe(RECEIVED - 7200)
    expect(r.event.errors).toBeUndefined()
  })
})
