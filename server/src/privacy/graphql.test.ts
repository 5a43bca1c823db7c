import { describe, expect, it } from 'vitest'
import { normalizeEvent } from '../event/normalize.ts'
import { scrubEvent, scrubPolicy } from './scrub.ts'
import { NEW_PROJECT_PRIVACY } from './settings.ts'

const policy = (scrub = true) => scrubPolicy({ ...NEW_PROJECT_PRIVACY, scrub })

/** What sentry-python's Strawberry integration sends with `send_default_pii=True`. */
const graphqlEvent = (data: unknown, response?: unknown) =>
  normalizeEvent(
    {
      message: 'mutation failed',
      request: { url: 'https://shop.example/graphql', method: 'POST', api_target: 'graphql', data },
      ...(response === undefined ? {} : { contexts: { response: { data: response } } }),
    },
    { received: 1 },
  )

describe('GraphQL requests', () => {
  it('have every variable filtered, and the same names in the answer', () => {
    const event = graphqlEvent(
      {
        query:
          'mutation Login($u: String!, $n: String!) { login(user: $u, note: $n) { user { u n } } }',
        variables: { u: 'alice', n: 'mothersmaidenXYZ' },
      },
      { data: { login: { user: { u: 'alice', n: 'mothersmaidenXYZ', id: 7 } } } },
    )
    const meta = scrubEvent(event, {}, policy())
    expect(event.request?.['data']).toEqual({
      query: expect.stringContaining('mutation Login'),
      variables: { u: '[Filtered]', n: '[Filtered]' },
    })
    expect(event.contexts?.['response']).toEqual({
      data: { data: { login: { user: { u: '[Filtered]', n: '[Filtered]', id: 7 } } } },
    })
    expect(JSON.stringify(meta)).toContain('"variables":{"u":{"":{"rem":[["@graphql","s"]]}}')
  })

  it('read a body sent as JSON text, and drop the answer of a query without variables', () => {
    const query = { query: '{ me(pin: "4455") { email } }' }
    const event = graphqlEvent(JSON.stringify(query), { data: { me: { email: 'a@example.com' } } })
    scrubEvent(event, {}, policy())
    // The request's normalisation parsed the body (as Relay does).
    expect(event.request?.['data']).toEqual(query)
    expect(event.contexts?.['response']).toEqual({ data: {} })
    const withVars = graphqlEvent(JSON.stringify({ query: 'q', variables: { pin: '4455' } }))
    scrubEvent(withVars, {}, policy())
    expect(withVars.request?.['data']).toEqual({ query: 'q', variables: { pin: '[Filtered]' } })
  })

  it('are left as sent when scrubbing is off, or the request is no GraphQL one', () => {
    const off = graphqlEvent({ query: 'q', variables: { pin: '4455' } })
    scrubEvent(off, {}, policy(false))
    expect(off.request?.['data']).toEqual({ query: 'q', variables: { pin: '4455' } })
    const rest = normalizeEvent(
      { message: 'm', request: { url: 'https://x/api', data: { variables: { pin: '4455' } } } },
      { received: 1 },
    )
    scrubEvent(rest, {}, policy())
    expect(rest.request?.['data']).toEqual({ variables: { pin: '4455' } })
  })
})
