import { describe, expect, it } from 'vitest'
import { digestClientEvent, digestScope } from './event.ts'

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
