import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { fileApp } from './support/database-dump.ts'
import {
  ADMIN,
  createProject,
  eid,
  envelopeOf,
  sendItems,
  type TestProject,
} from './support/helpers.ts'
import { logRecord, logsExport } from './support/otlp-wire.ts'
import { outcomeMap, setQuota, storedEvents } from './support/outcome-helpers.ts'
import { createUser, signIn } from './support/ui-helpers.ts'

/** Secrets, each in one field of the event below; none may be found anywhere afterwards. */
const SECRETS = {
  message: 'msg-secret-9a1',
  param: 'param-secret-9a2',
  frameVar: 'framevar-secret-9a3',
  body: 'body-secret-9a4',
  form: 'form-secret-9a5',
  extra: 'extra-secret-9a6',
  context: 'ctx-secret-9a7',
  tag: 'tag-secret-9a8',
  user: 'user-secret-9a9',
  bearer: 'bearer-secret-9b1',
  session: 'session-cookie-9b2',
  csrf: 'csrf-cookie-9b3',
  query: 'query-secret-9b4',
  urlPass: 'urlpass-9b5',
  crumb: 'crumb-secret-9b6',
  exception: 'exc-secret-9b7',
  topLevel: 'toplevel-secret-9b8',
  otlp: 'otlp-secret-9b9',
  pem: 'MIIEpAIBAAKCAQEApemsecret9c1',
  card: '4111 1111 1111 1111',
  cardPlain: '4111111111111111',
  iban: 'DE89370400440532013000',
  ssn: '078-05-1120',
  serverName: 'server-name-secret-9c2',
  // A raw URL path as the transaction (a reset link's token), a client's culprit, a card's code.
  transaction: 'transaction-secret-9c4',
  culprit: 'culprit-secret-9c5',
  cvv: 'cvv-secret-9c7',
  setCookie: 'set-cookie-secret-9c6',
  // A log parameter whose placeholder follows a secret's name (`token %s`).
  logParam: 'log-param-secret-9c3',
  // An e-mail address in the log message's text (Relay's replace-only rule there).
  email: 'mailbox-9c8@example.org',
  // Access tokens under keys that name no secret: found by their format (put together here,
  // so no scanner mistakes this file for a leak).
  githubToken: `${'ghp'}_${'Z9y8X7w6V5u4'.repeat(3)}`,
  jwt: `${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiI5YzMifQ.c2lnbmF0dXJl`,
}

/** An event with a secret in every field a client can fill. */
function secretEvent(id: string): Record<string, unknown> {
  return {
    event_id: id,
    platform: 'node',
    level: 'error',
    logentry: {
      message: 'login failed for %s with token %s',
      params: [{ password: SECRETS.param }, SECRETS.logParam],
    },
    message: `login failed password=${SECRETS.message} for ${SECRETS.email}`,
    server_name: `web-1 password=${SECRETS.serverName}`,
    transaction: `/reset?token=${SECRETS.transaction}`,
    culprit: `app/login.js in login password=${SECRETS.culprit}`,
    exception: {
      values: [
        {
          type: 'Error',
          value: `charge ${SECRETS.card} failed token=${SECRETS.exception}`,
          stacktrace: {
            frames: [
              {
                filename: 'app/login.js',
                abs_path: '/srv/app/login.js',
                function: 'login',
                lineno: 3,
                vars: {
                  password: SECRETS.frameVar,
                  pem: `-----BEGIN PRIVATE KEY-----\n${SECRETS.pem}\n-----END PRIVATE KEY-----`,
                },
              },
            ],
          },
        },
      ],
    },
    breadcrumbs: {
      values: [{ message: `Authorization: Bearer ${SECRETS.crumb}`, data: { ssn: SECRETS.ssn } }],
    },
    extra: {
      api_key: SECRETS.extra,
      db: `postgres://app:${SECRETS.urlPass}@db/app`,
      iban: SECRETS.iban,
      environ: { GH_PAT: SECRETS.githubToken, CALLBACK: `https://app/cb?t=${SECRETS.jwt}` },
    },
    contexts: {
      app: { secret: SECRETS.context },
      response: { status_code: 500, headers: { 'Set-Cookie': `sessionid=${SECRETS.setCookie}` } },
    },
    tags: { auth_token: SECRETS.tag },
    user: { id: '7', password: SECRETS.user },
    request: {
      url: 'https://shop.example.com/login',
      method: 'POST',
      headers: {
        Authorization: `Bearer ${SECRETS.bearer}`,
        Cookie: `sessionid=${SECRETS.session}; theme=dark`,
        'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0.0.0 Safari/537.36',
      },
      cookies: { csrftoken: SECRETS.csrf },
      query_string: `next=%2F&token=${SECRETS.query}`,
      data: JSON.stringify({
        username: 'bob',
        password: SECRETS.body,
        card: SECRETS.cardPlain,
        cvv: SECRETS.cvv,
      }),
    },
    credentials: SECRETS.topLevel,
  }
}

function expectNoSecret(where: string, text: string): void {
  for (const [name, secret] of Object.entries(SECRETS))
    expect(text.includes(secret), `${name} found in ${where}`).toBe(false)
}

describe('server-side scrubbing', () => {
  let app: FastifyInstance
  let dump: () => Promise<string>
  let p: TestProject
  beforeEach(async () => {
    ;({ app, dump } = await fileApp())
    p = await createProject(app)
  })
  afterEach(async () => {
    await app.close()
  })

  it('leaves no secret in the database, the API or the pages, and says what it removed', async () => {
    const res = await sendItems(app, p, [
      ['event', secretEvent(eid(1))],
      [
        'event',
        {
          event_id: eid(2),
          message: 'form post',
          request: { method: 'POST', data: `user=bob&password=${SECRETS.form}` },
        },
      ],
    ])
    expect(res.statusCode).toBe(200)
    const otlp = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/otlp/v1/logs`,
      headers: {
        'content-type': 'application/json',
        'x-sentry-auth': `sentry sentry_key=${p.key}`,
      },
      payload: JSON.stringify(
        logsExport([
          logRecord({
            severityNumber: 17,
            body: 'payment failed',
            attributes: { 'db.password': SECRETS.otlp, 'card.number': SECRETS.cardPlain },
          }),
        ]),
      ),
    })
    expect(otlp.statusCode).toBe(200)
    expect(await storedEvents(app, p.id)).toBe(3)

    const api = await app.inject({
      url: `/api/0/projects/${p.id}/events/${eid(1)}/`,
      headers: ADMIN,
    })
    expect(api.statusCode).toBe(200)
    expectNoSecret('the event API', api.body)
    const event = api.json<Record<string, unknown>>()
    // The e-mail address is masked where it was, in the message's text.
    expect(event['message']).toBe('login failed password=[Filtered] for [email]')
    // The remarks name the rule and the path, never the value.
    expect(event['_meta']).toMatchObject({
      request: {
        data: { password: { '': { rem: [['@password', 's']] } } },
        headers: { Authorization: { '': { rem: [['@password', 's']] } } },
      },
      extra: { api_key: { '': { rem: [['@password', 's']] } } },
      exception: {
        values: {
          0: {
            value: {
              '': {
                rem: [
                  ['@creditcard', 's'],
                  ['@password', 's'],
                ],
              },
            },
          },
        },
      },
      credentials: { '': { rem: [['@password', 's']] } },
    })
    // What the scrubber must not touch is still there.
    expect(api.body).toContain('/srv/app/login.js')
    // The Cookie header went with the request's cookies there (Relay's normalisation).
    expect(api.body).not.toContain('theme=dark')
    expect(api.body).toContain('"query_string":[["next","/"],["token","[Filtered]"]]')
    expect(api.body).toContain('Chrome/131.0.0.0')

    const issues = await app.inject({ url: `/api/0/projects/${p.id}/issues/`, headers: ADMIN })
    expectNoSecret('the issue list', issues.body)
    for (const issue of issues.json<{ id: number }[]>()) {
      const evs = await app.inject({ url: `/api/0/issues/${issue.id}/events/`, headers: ADMIN })
      expectNoSecret('an issue events page of the API', evs.body)
    }

    await createUser(app)
    const ui = await signIn(app)
    const first = issues
      .json<{ id: number; title: string }[]>()
      .find((i) => i.title.includes('charge'))
    expect(first).toBeDefined()
    const page = await ui.get(`/issues/${first?.id}`)
    expect(page.statusCode).toBe(200)
    expectNoSecret('the issue page', page.body)
    expect(page.body).toContain('Data removed')
    expect(page.body).toContain('request.data.password')

    const db = await dump()
    // Positive control: the dump reads the decoded payloads (their kept values are there).
    expect(db).toContain('/srv/app/login.js')
    expect(db).toContain('"next","/"')
    expectNoSecret('the database', db)
  })

  it('scrubs request headers and cookies of shapes no SDK sends: a string, non-pairs, parts without =', async () => {
    const secrets = ['hdr-string-7d1', 'hdr-item-7d2', 'cookie-part-7d3', 'cookies-part-7d4']
    const event = (id: string, headers: unknown, cookies: unknown) => ({
      event_id: id,
      message: 'odd request shapes',
      request: { url: 'https://example.com/', headers, cookies },
    })
    const res = await sendItems(app, p, [
      ['event', event(eid(1), `Authorization: Bearer ${secrets[0]}`, 'lang=en')],
      [
        'event',
        event(
          eid(2),
          [`Authorization: Bearer ${secrets[1]}`, ['Cookie', `theme=dark; Bearer ${secrets[2]}`]],
          `lang=en; postgres://u:${secrets[3]}@db/x`,
        ),
      ],
    ])
    expect(res.statusCode).toBe(200)
    await createUser(app)
    const ui = await signIn(app)
    const pages: string[] = [await dump()]
    for (const n of [1, 2]) {
      const ev = await app.inject({
        url: `/api/0/projects/${p.id}/events/${eid(n)}/`,
        headers: ADMIN,
      })
      expect(ev.statusCode).toBe(200)
      const issueId = ev.json<{ issue_id: number }>().issue_id
      // Positive control: the scrubbed request is stored, with its filtered values marked (a
      // header string that names a secret goes whole, a bearer token in a cookie part alone).
      expect(ev.body).toContain(n === 1 ? '"headers":"[Filtered]"' : '"headers":["[Filtered]"]')
      pages.push(ev.body)
      for (const url of [`/issues/${issueId}?event=${eid(n)}`, `/issues/${issueId}`]) {
        const page = await ui.get(url)
        expect(page.statusCode).toBe(200)
        pages.push(page.body)
      }
    }
    for (const secret of secrets)
      for (const page of pages) expect(page.includes(secret), secret).toBe(false)
  })

  it('groups on scrubbed data: secrets in the message do not split an issue', async () => {
    for (const [n, pw] of [
      [1, 'first-pw-1'],
      [2, 'second-pw-2'],
    ] as const)
      await sendItems(app, p, [
        ['event', { event_id: eid(n), message: `bad login password=${pw}` }],
      ])
    const issues = (
      await app.inject({ url: `/api/0/projects/${p.id}/issues/`, headers: ADMIN })
    ).json<{ title: string; count: number }[]>()
    expect(issues.map((i) => [i.title, i.count])).toEqual([['bad login password=[Filtered]', 2]])
  })

  it('stores no IP address when asked, and never fills one for infer_ip never', async () => {
    const send = (n: number, extra: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: `/api/${p.id}/envelope/`,
        headers: { 'x-sentry-auth': `Sentry sentry_key=${p.key}, sentry_version=7` },
        remoteAddress: '198.51.100.23',
        payload: envelopeOf([['event', { event_id: eid(n), message: 'ip', ...extra }]]),
      })
    const ipOf = async (n: number) =>
      (
        await app.inject({ url: `/api/0/projects/${p.id}/events/${eid(n)}/`, headers: ADMIN })
      ).json<{ user?: { ip_address?: string } }>().user?.ip_address
    await send(1, { user: { ip_address: '{{auto}}' } })
    await send(2, {
      user: { ip_address: '{{auto}}' },
      sdk: { name: 'x', settings: { infer_ip: 'never' } },
    })
    await send(3, { sdk: { name: 'x', settings: { infer_ip: 'auto' } } })
    expect([await ipOf(1), await ipOf(2), await ipOf(3)]).toEqual([
      '198.51.100.23',
      undefined,
      '198.51.100.23',
    ])

    const put = await app.inject({
      method: 'PUT',
      url: `/api/0/projects/${p.id}/privacy/`,
      headers: ADMIN,
      payload: { scrub_ip_addresses: true },
    })
    expect(put.statusCode).toBe(200)
    await send(4, { user: { ip_address: '{{auto}}' }, extra: { from: 'client 198.51.100.23' } })
    await send(5, { user: { ip_address: '203.0.113.5' } })
    expect([await ipOf(4), await ipOf(5)]).toEqual([undefined, undefined])
    const five = await app.inject({
      url: `/api/0/projects/${p.id}/events/${eid(4)}/`,
      headers: ADMIN,
    })
    expect(five.body).not.toContain('198.51.100.23')
    expect(five.json<{ extra: unknown }>().extra).toEqual({ from: 'client [ip]' })
  })
})

describe('inbound filters', () => {
  let app: FastifyInstance
  let p: TestProject
  beforeEach(async () => {
    ;({ app } = await fileApp())
    p = await createProject(app)
  })
  afterEach(async () => {
    await app.close()
  })

  const put = (body: Record<string, unknown>) =>
    app.inject({
      method: 'PUT',
      url: `/api/0/projects/${p.id}/privacy/`,
      headers: ADMIN,
      payload: body,
    })
  const ua = (agent: string) => ({
    request: { url: 'https://shop.example.com/', headers: { 'User-Agent': agent } },
  })
  const CHROME =
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'

  it('are on for browser extensions and crawlers in a new project, off for the rest', async () => {
    const got = await app.inject({ url: `/api/0/projects/${p.id}/privacy/`, headers: ADMIN })
    expect(got.json()).toEqual({
      scrub_data: true,
      scrub_defaults: true,
      sensitive_fields: [],
      safe_fields: [],
      scrub_ip_addresses: false,
      filters: {
        localhost: false,
        browser_extensions: true,
        legacy_browsers: false,
        web_crawlers: true,
        error_messages: [],
        releases: [],
        client_ips: [],
      },
    })
  })

  it('drop what they should, keep the near misses, count outcomes by reason and charge no quota', async () => {
    expect(
      (
        await put({
          filters: {
            localhost: true,
            legacy_browsers: true,
            error_messages: ['ChunkLoadError: Loading chunk *'],
            releases: ['1.2.*'],
            client_ips: ['203.0.113.0/24'],
          },
        })
      ).statusCode,
    ).toBe(200)
    await setQuota(app, p.id, { events: 6, window_seconds: 3600 })
    const dropped: Record<string, unknown>[] = [
      { request: { url: 'http://localhost:3000/cart' } },
      { exception: { values: [{ type: 'Error', value: 'Extension context invalidated.' }] } },
      ua('Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)'),
      ua('Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)'),
      { exception: { values: [{ type: 'ChunkLoadError', value: 'Loading chunk 42 failed.' }] } },
      { release: '1.2.3' },
    ]
    const kept: Record<string, unknown>[] = [
      { request: { url: 'https://localhost.example.com/cart' } },
      { exception: { values: [{ type: 'Error', value: 'Extension of trial invalidated' }] } },
      ua(CHROME),
      ua(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 Version/17.5 Safari/605.1.15',
      ),
      { exception: { values: [{ type: 'TypeError', value: 'Loading chunk 42 failed.' }] } },
      { release: '1.3.0' },
    ]
    let n = 0
    for (const e of dropped) {
      // Answered 200 with the envelope's id, as Relay answers a filtered event.
      const id = eid(++n)
      const r = await sendItems(app, p, [['event', { event_id: id, message: `m${n}`, ...e }]], {
        event_id: id,
      })
      expect(r.statusCode, JSON.stringify(e)).toBe(200)
      expect(r.json()).toEqual({ id })
    }
    // The client-IP filter: the sender's address.
    const blocked = await app.inject({
      method: 'POST',
      url: `/api/${p.id}/envelope/`,
      headers: { 'x-sentry-auth': `Sentry sentry_key=${p.key}, sentry_version=7` },
      remoteAddress: '203.0.113.77',
      payload: envelopeOf([['event', { event_id: eid(++n), message: 'from a blocked address' }]]),
    })
    expect(blocked.statusCode).toBe(200)
    expect(await storedEvents(app, p.id)).toBe(0)
    for (const e of kept) {
      const r = await sendItems(app, p, [['event', { event_id: eid(++n), message: `m${n}`, ...e }]])
      expect(r.statusCode, JSON.stringify(e)).toBe(200)
    }
    // Six kept events fill the quota of six exactly: the seven filtered ones were not charged.
    expect(await storedEvents(app, p.id)).toBe(6)
    expect(await outcomeMap(app, p.id)).toEqual({
      'accepted/error': 6,
      'filtered:localhost/error': 1,
      'filtered:browser-extensions/error': 1,
      'filtered:legacy-browsers/error': 1,
      'filtered:web-crawlers/error': 1,
      'filtered:error-message/error': 1,
      'filtered:release-version/error': 1,
      'filtered:ip-address/error': 1,
    })
  })

  it('take effect at once when changed, and refuse settings that do not parse', async () => {
    const crawler = (n: number) =>
      sendItems(app, p, [['event', { event_id: eid(n), message: 'crawl', ...ua('Googlebot/2.1') }]])
    await crawler(1)
    expect(await storedEvents(app, p.id)).toBe(0)
    expect((await put({ filters: { web_crawlers: false } })).statusCode).toBe(200)
    await crawler(2)
    expect(await storedEvents(app, p.id)).toBe(1)

    const before = (await app.inject({ url: `/api/0/projects/${p.id}/privacy/`, headers: ADMIN }))
      .body
    const bad: [Record<string, unknown>, string][] = [
      [
        { filters: { releases: ['1.*', '{1,2'] } },
        `filters.releases[1] "{1,2": a '{' without its '}'`,
      ],
      [
        { filters: { client_ips: ['10.0.0.0/40'] } },
        'filters.client_ips[0] "10.0.0.0/40": prefix length must be 0–32',
      ],
      [
        { sensitive_fields: Array.from({ length: 101 }, (_, i) => `f${i}`) },
        'sensitive_fields: 101 entries, at most 100',
      ],
    ]
    for (const [body, detail] of bad) {
      const r = await put(body)
      expect(r.statusCode).toBe(400)
      expect(r.json<{ detail: string }>().detail).toBe(detail)
    }
    expect((await put({ scrub_data: 'yes' })).statusCode).toBe(400)
    expect(
      (await app.inject({ url: `/api/0/projects/${p.id}/privacy/`, headers: ADMIN })).body,
    ).toBe(before)
  })

  it('are set from the project settings page', async () => {
    await createUser(app)
    const ui = await signIn(app)
    const page = await ui.get(`/projects/${p.id}/settings`)
    expect(page.body).toContain('Data scrubbing and inbound filters')
    const bad = await ui.post(`/projects/${p.id}/settings/privacy`, {
      scrub_data: 'on',
      scrub_defaults: 'on',
      client_ips: '10.0.0.1\nnot-an-ip',
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.body).toContain(
      'filters.client_ips[1] &quot;not-an-ip&quot;: not an IP address or CIDR block',
    )
    const ok = await ui.post(`/projects/${p.id}/settings/privacy`, {
      scrub_data: 'on',
      scrub_defaults: 'on',
      localhost: 'on',
      releases: '1.2.*\n\n2.*',
      sensitive_fields: 'member_no',
    })
    expect(ok.statusCode).toBe(303)
    const got = (
      await app.inject({ url: `/api/0/projects/${p.id}/privacy/`, headers: ADMIN })
    ).json<{
      filters: Record<string, unknown>
      sensitive_fields: string[]
    }>()
    expect(got.filters).toMatchObject({
      localhost: true,
      browser_extensions: false,
      web_crawlers: false,
      releases: ['1.2.*', '2.*'],
    })
    expect(got.sensitive_fields).toEqual(['member_no'])
  })
})
