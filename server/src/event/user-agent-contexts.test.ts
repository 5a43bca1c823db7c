import { describe, expect, it } from 'vitest'
import { eventSearchFields } from '../search/event-tags.ts'
import { normalizeEvent } from './normalize.ts'
import { fillUserAgentContexts } from './user-agent-contexts.ts'

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36'
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1'

const filled = (raw: Record<string, unknown>) => {
  const e = normalizeEvent(raw, { received: 1 })
  fillUserAgentContexts(e)
  return e
}

describe('fillUserAgentContexts', () => {
  it("fills a browser SDK's browser and os from the page's User-Agent, tagged as Sentry tags them", () => {
    const e = filled({ platform: 'javascript', request: { headers: { 'User-Agent': CHROME } } })
    expect(e.contexts?.['browser']).toEqual({
      name: 'Chrome',
      version: '120.0.0',
      type: 'browser',
    })
    expect(e.contexts?.['os']).toEqual({ name: 'Windows', version: '10', type: 'os' })
    expect(eventSearchFields(e).tags).toEqual(
      expect.arrayContaining([
        ['browser', 'Chrome 120.0.0'],
        ['browser.name', 'Chrome'],
        ['os.name', 'Windows'],
      ]),
    )
  })

  it('reads headers sent as pairs, and never replaces a context the SDK sent', () => {
    const e = filled({
      request: { headers: [['user-agent', IPHONE]] },
      contexts: { os: { name: 'Linux', version: '6.1' } },
    })
    expect(e.contexts?.['browser']).toMatchObject({ name: 'Safari', version: '17.2' })
    expect(e.contexts?.['os']).toEqual({ name: 'Linux', version: '6.1' })
  })

  it('adds nothing for a User-Agent no parser knows, or none', () => {
    expect(
      filled({ request: { headers: { 'User-Agent': 'python-requests/2.31' } } }).contexts,
    ).toBeUndefined()
    expect(filled({ message: 'x' }).contexts).toBeUndefined()
  })
})
