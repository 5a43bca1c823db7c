import { describe, expect, it } from 'vitest'
import { normalizeEvent } from '../event/normalize.ts'
import { DEFAULT_DETECTORS, EMAIL, ibanValid, JOIN, keyBeforeSeparator, luhn } from './patterns.ts'
import { scrubEvent, scrubPolicy } from './scrub.ts'
import { NEW_PROJECT_PRIVACY, type PrivacySettings } from './settings.ts'

const policy = (over: Partial<PrivacySettings> = {}) =>
  scrubPolicy({ ...NEW_PROJECT_PRIVACY, ...over })

/** Scrubs `extra.value` and returns what is left of it and the remarks. */
function scrubExtra(value: unknown, over: Partial<PrivacySettings> = {}) {
  const event = normalizeEvent({ extra: { value } }, { received: 1 })
  const meta = scrubEvent(event, {}, policy(over))
  return { value: event.extra?.['value'], meta }
}

/** `value` as an exception's value, where the value rules replace only what they match. */
function scrubExceptionValue(value: string) {
  const event = normalizeEvent(
    { exception: { values: [{ type: 'Error', value }] } },
    { received: 1 },
  )
  const meta = scrubEvent(event, {}, policy())
  return { value: event.exception?.values[0]?.value, meta }
}

describe('value rules', () => {
  const cases: [string, string, string, string | undefined][] = [
    [
      'card with spaces',
      'paid with 4111 1111 1111 1111 today',
      'paid with [Filtered] today',
      '@creditcard',
    ],
    ['card with dashes', '5555-5555-5555-4444', '[Filtered]', '@creditcard'],
    ['digits failing Luhn', 'order 4111 1111 1111 1112', 'order 4111 1111 1111 1112', undefined],
    [
      'bearer token',
      'Authorization: Bearer abc.def.ghi',
      'Authorization: Bearer [Filtered]',
      '@bearer',
    ],
    [
      'url password',
      'postgres://app:s3cr3tpw@db:5432/x',
      'postgres://app:[Filtered]@db:5432/x',
      '@urlauth',
    ],
    ['url without password', 'https://user@example.com/', 'https://user@example.com/', undefined],
    [
      'pem key',
      '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----',
      '[Filtered]',
      '@pemkey',
    ],
    ['iban', 'send to DE89 3704 0044 0532 0130 00 now', 'send to [Filtered] now', '@iban'],
    ['iban with bad checksum', 'DE00370400440532013000', 'DE00370400440532013000', undefined],
    ['us ssn', 'ssn 078-05-1120', 'ssn [Filtered]', '@usssn'],
    [
      'password pair',
      'login failed password=hunter2 for bob',
      'login failed password=[Filtered] for bob',
      '@password',
    ],
    ['token in query', 'GET /cb?token=abc123&x=1', 'GET /cb?token=[Filtered]&x=1', '@password'],
    [
      'key word ending a longer name',
      'GET /cb?refresh_token=r1&client_secret=c2&x=1 db_password: p3',
      'GET /cb?refresh_token=[Filtered]&client_secret=[Filtered]&x=1 db_password: [Filtered]',
      '@password',
    ],
    [
      "a key's secret half under its usual names",
      'config: AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI private_key: k9 aws_access_key_id=AKID keys=3',
      'config: AWS_SECRET_ACCESS_KEY=[Filtered] private_key: [Filtered] aws_access_key_id=AKID keys=3',
      '@password',
    ],
    [
      'a session cookie written out in a repr of headers',
      "EnvironHeaders([('Cookie', 'sessionid=sess9876; theme=dark; JSESSIONID=j1; PHPSESSID=p2')])",
      "EnvironHeaders([('Cookie', 'sessionid=[Filtered]; theme=dark; JSESSIONID=[Filtered]; PHPSESSID=[Filtered]')])",
      '@password',
    ],
    [
      'basic credentials',
      'Authorization: Basic dXNlcjpwYXNz',
      'Authorization: Basic [Filtered]',
      '@password',
    ],
    [
      'closing brackets after the value',
      '[Request processing failed: password=hunter2] {user=bob, token=t0k3n} (auth=pa(ss))',
      '[Request processing failed: password=[Filtered]] {user=bob, token=[Filtered]} (auth=[Filtered])',
      '@password',
    ],
    ['key word inside a word', 'author=bob max_tokens=100', 'author=bob max_tokens=100', undefined],
    [
      'log template placeholders',
      'login failed password={} token=%s api_key=%(key)s',
      'login failed password={} token=%s api_key=%(key)s',
      undefined,
    ],
    ['plain text', 'nothing secret here', 'nothing secret here', undefined],
    // Test tokens are put together here, so no scanner mistakes this file for a leak.
    [
      'github token in a line',
      `cloning with ${'ghp_'}${'a1B2c3D4e5F6'.repeat(3)} now`,
      'cloning with [Filtered] now',
      '@apitoken',
    ],
    [
      'github fine-grained token',
      `${'github_pat_'}${'11AB_cd'.repeat(6)}`,
      '[Filtered]',
      '@apitoken',
    ],
    ['stripe key', `${'sk_'}live_${'4eC39HqLyjWDarjtT1zdp7dc'}`, '[Filtered]', '@apitoken'],
    ['slack token', `token ${'xoxb'}-1234567890-abcdefghij`, 'token [Filtered]', '@apitoken'],
    ['aws access key id', `key id ${'AKIA'}IOSFODNN7EXAMPLE.`, 'key id [Filtered].', '@apitoken'],
    ['gitlab token', `${'glpat'}-${'x'.repeat(20)}`, '[Filtered]', '@apitoken'],
    [
      'json web token',
      `GET /cb?jwt=${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiIxMjM0In0.sig-nature_01&x=1`,
      'GET /cb?jwt=[Filtered]&x=1',
      '@apitoken',
    ],
    ['not a slack token', 'xoxo-gossip-girl-fan-club', 'xoxo-gossip-girl-fan-club', undefined],
    [
      'token prefix alone',
      'ghp_ and sk_live_ are prefixes',
      'ghp_ and sk_live_ are prefixes',
      undefined,
    ],
    [
      'too short for a token',
      `${'ghp_'}${'a'.repeat(20)}`,
      `${'ghp_'}${'a'.repeat(20)}`,
      undefined,
    ],
    [
      'token start inside a word',
      `${'X9'}${'AKIA'}IOSFODNN7EXAMPLE ${'xghp_'}${'a1B2c3D4e5F6'.repeat(3)}`,
      `X9${'AKIA'}IOSFODNN7EXAMPLE x${'ghp_'}${'a1B2c3D4e5F6'.repeat(3)}`,
      undefined,
    ],
    [
      'token joined to a word by - or _, or an AWS key id to a lower-case word',
      `uid-${'ghp_'}${'a1B2c3D4e5F6'.repeat(3)} key${'AKIA'}IOSFODNN7EXAMPLE x_${'sk_'}live_${'4eC39HqLyjWDarjtT1zdp7dc'}`,
      'uid-[Filtered] key[Filtered] x_[Filtered]',
      '@apitoken',
    ],
  ]
  it.each(cases)('%s', (_name, input, output, rule) => {
    const { value, meta } = scrubExceptionValue(input)
    expect(value).toBe(output)
    if (rule === undefined) expect(meta).toBeUndefined()
    else
      expect(meta).toEqual({
        exception: { values: { 0: { value: { '': { rem: [[rule, 's']] } } } } },
      })
  })

  // Relay's password rule on a value (relay-pii `PatternType::KeyValue`): in free-form data a
  // string that mentions a secret is filtered whole, whatever else it says.
  const whole: [string, string, boolean][] = [
    ['a password in prose', 'the password is hunter2', true],
    ['a secret without a separator', 'nothing secret here', true],
    ['an environment line', 'AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI', true],
    ['a token with its separator', 'GET /cb?token=abc123&x=1', true],
    ['a longer token name', 'max_tokens=100', true],
    ['auth inside a word, as Relay', 'author=bob', true],
    ['a private key name', 'private-key missing', true],
    ['a token without a separator', 'token count', false],
    ['a token, then a comma', 'a token, then more', false],
    ['plain text', 'hello world', false],
  ]
  it.each(whole)('%s in free-form data', (_name, input, filtered) => {
    const { value, meta } = scrubExtra(input)
    expect(value).toBe(filtered ? '[Filtered]' : input)
    if (filtered) expect(meta).toEqual({ extra: { value: { '': { rem: [['@password', 's']] } } } })
    else expect(meta).toBeUndefined()
  })

  it('checks Luhn and IBAN checksums', () => {
    expect(luhn('4111111111111111')).toBe(true)
    expect(luhn('4111111111111112')).toBe(false)
    expect(ibanValid('GB82 WEST 1234 5698 7654 32')).toBe(true)
    expect(ibanValid('GB82 WEST 1234 5698 7654 33')).toBe(false)
  })

  it('leaves values alone with the defaults off', () => {
    expect(scrubExtra('4111 1111 1111 1111', { scrubDefaults: false }).value).toBe(
      '4111 1111 1111 1111',
    )
    expect(scrubExtra({ password: 'x1' }, { scrub: false }).value).toEqual({ password: 'x1' })
  })

  it('scrubs a card number sent as a JSON number', () => {
    expect(scrubExtra(4111111111111111).value).toBe('[Filtered]')
  })
})

describe('key rules', () => {
  const keys: [string, boolean][] = [
    ['password', true],
    ['user_password', true],
    ['Secret', true],
    ['passwd', true],
    ['api_key', true],
    ['apiKey', true],
    ['X-Api-Key', true],
    ['authorization', true],
    ['credentials', true],
    ['mysql_pwd', true],
    ['private_key', true],
    ['privatekey', true],
    ['access_token', true],
    ['csrfToken', true],
    ['otp', true],
    ['username', false],
    ['email', false],
    ['count', false],
  ]
  it.each(keys)('%s filtered: %s', (key, filtered) => {
    const { value } = scrubExtra({ [key]: 'v4lue' })
    expect(value).toEqual({ [key]: filtered ? '[Filtered]' : 'v4lue' })
  })

  it('filters a whole object under a sensitive key, and records the path', () => {
    const { value, meta } = scrubExtra({ auth: { user: 'a', pass: 'b' } })
    expect(value).toEqual({ auth: '[Filtered]' })
    expect(meta).toEqual({ extra: { value: { auth: { '': { rem: [['@password', 's']] } } } } })
  })

  it('adds sensitive fields (key or value) and keeps safe fields', () => {
    expect(
      scrubExtra({ member_no: '42', note: 'ok' }, { sensitiveFields: ['member_no'] }).value,
    ).toEqual({ member_no: '[Filtered]', note: 'ok' })
    expect(
      scrubExtra({ note: 'my member_no is 42' }, { sensitiveFields: ['member_no'] }).value,
    ).toEqual({ note: '[Filtered]' })
    expect(
      scrubExtra({ token_count: 3, auth_mode: 'oauth' }, { safeFields: ['auth_mode'] }).value,
    ).toEqual({ token_count: '[Filtered]', auth_mode: 'oauth' })
  })
})

describe('cookie headers under their own name', () => {
  it.each(['http.request.header.cookie', 'http.response.header.set-cookie', 'Cookie'])(
    '%s is read cookie by cookie',
    (key) => {
      const { value } = scrubExtra({ [key]: 'sessionid=s3cr3t; theme=dark' })
      expect(value).toEqual({ [key]: 'sessionid=[Filtered]; theme=dark' })
    },
  )

  it('leaves a key that only contains the word', () => {
    // `session` is a session cookie's name: read as a cookie header, it would be filtered.
    expect(scrubExtra({ cookie_policy: 'session=x' }).value).toEqual({
      cookie_policy: 'session=x',
    })
  })
})

describe('scrubEvent over every field', () => {
  const SECRET = 'hunter2'
  const raw = {
    message: 'user logged in with password=hunter2',
    logentry: { message: 'login %s', params: [{ password: SECRET }] },
    exception: {
      values: [
        {
          type: 'Error',
          value: 'bad card 4111 1111 1111 1111',
          stacktrace: {
            frames: [
              {
                filename: '/home/app/secret_token.js',
                abs_path: '/home/app/secret_token.js',
                function: 'login',
                vars: { password: SECRET, ok: 1 },
                context_line: 'const apiKey = "Bearer hunter2"',
              },
            ],
          },
          mechanism: { type: 'generic', help_link: 'https://docs.example.com/?password=hunter2' },
          // The minified frames a source map replaced, kept as sent: the same rules.
          raw_stacktrace: {
            frames: [
              {
                filename: 'app.min.js',
                function: 'n',
                vars: { password: SECRET, card: '4111111111111111' },
                context_line: 'n("Bearer hunter2")',
              },
            ],
          },
        },
      ],
    },
    breadcrumbs: [{ message: 'token=hunter2', data: { secret: SECRET } }],
    extra: { db: 'mysql://root:hunter2@db/app' },
    contexts: { app: { api_key: SECRET } },
    tags: { auth_token: SECRET, release_stage: 'prod' },
    user: { id: '7', password: SECRET, ip_address: '10.1.2.3' },
    request: {
      url: 'https://example.com/login?token=hunter2',
      method: 'POST',
      headers: {
        Authorization: `Bearer ${SECRET}`,
        Cookie: `sessionid=${SECRET}; theme=dark`,
        'User-Agent': 'Mozilla/5.0',
      },
      cookies: { csrftoken: SECRET, _csrf: SECRET, lang: 'en' },
      query_string: `a=1&password=${SECRET}`,
      data: JSON.stringify({ username: 'bob', password: SECRET, card: '4111111111111111' }),
      env: { REMOTE_ADDR: '10.1.2.3' },
    },
    debug_meta: { images: [{ code_file: '/secret/password.so' }] },
  }

  it('leaves no secret and keeps file names, debug_meta and the user agent', () => {
    const event = normalizeEvent(structuredClone(raw), { received: 1 })
    const unknown: Record<string, unknown> = { debug_meta: raw.debug_meta }
    const meta = scrubEvent(event, unknown, policy())
    const text = JSON.stringify({ event, unknown })
    expect(text).not.toContain(SECRET)
    expect(text).not.toContain('4111')
    expect(text).toContain('/home/app/secret_token.js')
    expect(text).toContain('/secret/password.so')
    expect(text).toContain('Mozilla/5.0')
    expect(text).toContain('"lang":"en"')
    // As Relay: the Cookie header goes when the request's cookies are there.
    expect(event.request?.['headers']).not.toHaveProperty('Cookie')
    expect(meta).toMatchObject({
      request: {
        data: { password: { '': { rem: [['@password', 's']] } } },
        cookies: { _csrf: { '': { rem: [['@cookie', 's']] } } },
      },
      exception: { values: { 0: { value: { '': { rem: [['@creditcard', 's']] } } } } },
    })
    expect(JSON.stringify(meta)).not.toContain(SECRET)
    // No IP scrubbing unless asked.
    expect(event.user?.['ip_address']).toBe('10.1.2.3')
  })

  it('removes IP fields and masks addresses when asked', () => {
    const event = normalizeEvent(structuredClone(raw), { received: 1 })
    event.extra = { seen: 'from 192.168.1.20 and 2001:db8::7, not std::io or 1.2.3' }
    const meta = scrubEvent(event, {}, policy({ scrubIp: true }))
    expect(event.user?.['ip_address']).toBeUndefined()
    const env = event.request?.['env'] as Record<string, unknown> | undefined
    expect(env).toEqual({})
    expect(event.extra['seen']).toBe('from [ip] and [ip], not std::io or 1.2.3')
    expect(meta).toMatchObject({ user: { ip_address: { '': { rem: [['@ip', 'x']] } } } })
  })

  it('does not mutate the raw bags it was given', () => {
    const copy = structuredClone(raw)
    const event = normalizeEvent(copy, { received: 1 })
    scrubEvent(event, {}, policy())
    expect(copy.extra.db).toBe('mysql://root:hunter2@db/app')
    expect(copy.request.cookies.csrftoken).toBe(SECRET)
  })

  it('reads a two-item list whose first item is a string as a key and its value, as Relay does', () => {
    // An ASGI scope's headers in a frame's variables, as sentry-python sends them.
    const headers = [
      ["b'x-api-key'", "b'plainsecret999'"],
      ["b'host'", "b'shop.example'"],
      ['--password', 'argv-secret-1'],
    ]
    const frame = { function: 'handle', filename: 'app.py', vars: { scope: { headers } } }
    const event = normalizeEvent(
      {
        exception: { values: [{ type: 'E', stacktrace: { frames: [frame] } }] },
        extra: { argv: ['--token', 'argv-secret-2'], pair: ['note', 'kept as sent'] },
        fingerprint: ['token', 'grouping-kept'],
      },
      { received: 1 },
    )
    const meta = scrubEvent(event, {}, policy())
    const vars = event.exception?.values[0]?.stacktrace?.frames[0]?.vars as {
      scope: { headers: unknown }
    }
    expect(vars.scope.headers).toEqual([
      ["b'x-api-key'", '[Filtered]'],
      ["b'host'", "b'shop.example'"],
      ['--password', '[Filtered]'],
    ])
    expect(event.extra).toEqual({ argv: ['--token', '[Filtered]'], pair: ['note', 'kept as sent'] })
    // A fingerprint is never read as a pair: filtering it would regroup the event.
    expect(event.fingerprint).toEqual(['token', 'grouping-kept'])
    expect(JSON.stringify(meta)).toContain('"headers":{"0":{"1":{"":{"rem":[["@password","s"]]')
  })

  it('reads two values as two values, not as a name and its value', () => {
    const event = normalizeEvent(
      {
        extra: { env: ['AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI', 'HOME=/root'] },
        contexts: { deploy: { profiles: ['auth', 'prod'] } },
      },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    // The first names a secret (filtered whole); the second is kept, not taken for its value.
    expect(event.extra).toEqual({ env: ['[Filtered]', 'HOME=/root'] })
    // Two words are two values, as Relay reads them: the one that names a secret goes.
    expect(event.contexts).toEqual({ deploy: { profiles: ['[Filtered]', 'prod'] } })
  })

  it('reads a Cookie header in a Python repr cookie by cookie', () => {
    const vars = {
      headers: { Cookie: `'sessionid=${SECRET}; theme=dark'` },
    }
    const frame = { function: 'view', filename: 'app.py', vars }
    const event = normalizeEvent(
      { exception: { values: [{ type: 'E', stacktrace: { frames: [frame] } }] } },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    const out = event.exception?.values[0]?.stacktrace?.frames[0]?.vars
    expect(out).toEqual({
      headers: { Cookie: "'sessionid=[Filtered]; theme=dark'" },
    })
  })

  it("applies Relay's password rule on values where Relay does, and leaves names and messages", () => {
    const said = 'the password is hunter2'
    const frame = {
      function: 'login',
      filename: 'auth/views.py',
      context_line: '    auth = authenticate(request)',
      vars: { note: said, count: 'token count' },
    }
    const event = normalizeEvent(
      {
        exception: {
          values: [{ type: 'AuthError', value: said, stacktrace: { frames: [frame] } }],
        },
        logentry: { message: 'login for %s: %s', params: ['bob', said] },
        breadcrumbs: [{ message: 'user authenticated', data: { url: '/auth/cb' } }],
        transaction: '/auth/login',
        culprit: 'auth.views in login',
        fingerprint: ['auth-failure'],
        user: { id: 'auth0|5f7c8ec7', username: 'secret-agent' },
        contexts: {
          app: { type: 'app', app_name: 'AuthService' },
          billing: { note: said },
          state: { state: { type: 'redux', value: { note: said } } },
        },
        tags: { flow: 'oauth', plan: 'pro' },
        request: { url: 'https://shop.example/auth/callback', method: 'GET' },
        extra: { said },
      },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    const e = event.exception?.values[0]
    expect(e?.value).toBe(said)
    expect(e?.stacktrace?.frames[0]?.context_line).toBe('    auth = authenticate(request)')
    expect(e?.stacktrace?.frames[0]?.vars).toEqual({ note: '[Filtered]', count: 'token count' })
    expect(event.logentry?.message).toBe('login for %s: %s')
    expect(event.logentry?.params).toEqual(['bob', '[Filtered]'])
    expect(event.breadcrumbs?.values[0]?.message).toBe('[Filtered]')
    expect(event.breadcrumbs?.values[0]?.data).toEqual({ url: '[Filtered]' })
    expect(event.transaction).toBe('/auth/login')
    expect(event.culprit).toBe('auth.views in login')
    expect(event.fingerprint).toEqual(['auth-failure'])
    expect(event.user).toEqual({ id: 'auth0|5f7c8ec7', username: '[Filtered]' })
    expect(event.contexts).toMatchObject({
      app: { type: 'app', app_name: 'AuthService' },
      billing: { note: '[Filtered]' },
      state: { state: { type: 'redux', value: { note: '[Filtered]' } } },
    })
    expect(event.tags).toEqual([
      ['flow', '[Filtered]'],
      ['plan', 'pro'],
    ])
    expect(event.request?.['url']).toBe('[Filtered]')
    expect(event.extra).toEqual({ said: '[Filtered]' })
  })

  it('keeps code after a secret name in source lines, and filters secrets written there', () => {
    const code = [
      '    password = request.form["password"]',
      '    token = os.environ.get("API_TOKEN")',
      '    const { user } = req.body; const secret = req.body.secret',
      'def charge(user_id, password, card_number, api_key=None):',
      '    payload = {"auth": {"user": "x"}}',
      '    client = Client(api_key=api_key, db_password=db_password)',
      '    auth = getpass()',
    ]
    const frame = {
      function: 'login',
      filename: 'views.py',
      pre_context: code,
      context_line: "    api_key = \"sk-hunter2-literal\"; db = {'password': 'hunter3'}",
      post_context: [
        '    password = hunter2',
        '\tpanic(fmt.Errorf("order %s failed: password=hunter4", id))',
      ],
    }
    const event = normalizeEvent(
      {
        exception: {
          values: [
            { type: 'E', value: 'password = request.form.get(', stacktrace: { frames: [frame] } },
          ],
        },
      },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    const f = event.exception?.values[0]?.stacktrace?.frames[0]
    expect(f?.pre_context).toEqual(code)
    expect(f?.context_line).toBe("    api_key = \"[Filtered]\"; db = {'password': '[Filtered]'}")
    // A bare word after the name, in the code or inside a string literal, is a secret.
    expect(f?.post_context).toEqual([
      '    password = [Filtered]',
      '\tpanic(fmt.Errorf("order %s failed: password=[Filtered]", id))',
    ])
    // Outside source lines the rule reads any value after the name (in an exception's value,
    // where it replaces only the value).
    expect(event.exception?.values[0]?.value).toBe('password = [Filtered]')
  })

  it('scrubs a form-encoded body by key', () => {
    const event = normalizeEvent(
      { request: { data: `user=bob&password=${SECRET}&card=4111+1111+1111+1111` } },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    // Parsed into its fields by the request's normalisation, then scrubbed by key.
    expect(event.request?.['data']).toEqual({
      user: 'bob',
      password: '[Filtered]',
      card: '[Filtered]',
    })
    expect(event.request?.['inferred_content_type']).toBe('application/x-www-form-urlencoded')
  })

  it('scrubs request headers sent as a string or with items that are not pairs', () => {
    const scrubbedHeaders = (headers: unknown) => {
      const event = normalizeEvent({ request: { headers } }, { received: 1 })
      scrubEvent(event, {}, policy())
      return event.request?.['headers']
    }
    // A string that names a secret is filtered whole, as Relay's password rule does.
    expect(scrubbedHeaders(`Authorization: Bearer ${SECRET}`)).toBe('[Filtered]')
    expect(scrubbedHeaders(`X-Trace: ${'4111 1111 1111 1111'}`)).toBe('X-Trace: [Filtered]')
    expect(scrubbedHeaders(`{"password":"${SECRET}","x":"y"}`)).toBe(
      '{"password":"[Filtered]","x":"y"}',
    )
    expect(scrubbedHeaders(`a=1&password=${SECRET}`)).toBe('a=1&password=[Filtered]')
    expect(
      scrubbedHeaders([
        `Authorization: Bearer ${SECRET}`,
        ['X-A', 'b', `postgres://u:${SECRET}@db/x`],
        { api_key: SECRET },
        ['Authorization', `Bearer ${SECRET}`],
        ['Accept', 'text/html'],
      ]),
    ).toEqual([
      '[Filtered]',
      ['X-A', 'b', 'postgres://u:[Filtered]@db/x'],
      { api_key: '[Filtered]' },
      ['Authorization', '[Filtered]'],
      ['Accept', 'text/html'],
    ])
  })

  it('scrubs server_name by value, as Relay does (a host name is personal data)', () => {
    const event = normalizeEvent(
      { server_name: 'db.internal 4111 1111 1111 1111 10.1.2.3' },
      { received: 1 },
    )
    const meta = scrubEvent(event, {}, policy({ scrubIp: true }))
    expect(event.server_name).toBe('db.internal [Filtered] [ip]')
    expect(meta).toEqual({ server_name: { '': { rem: expect.any(Array) } } })
    // And whole when it names a secret (Relay's password rule on a value).
    const named = normalizeEvent({ server_name: 'auth-1.internal' }, { received: 1 })
    scrubEvent(named, {}, policy())
    expect(named.server_name).toBe('[Filtered]')
  })

  it('scrubs the transaction and a client culprit by value, and leaves a route name as sent', () => {
    const event = normalizeEvent(
      {
        transaction: `/reset/${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiIxIn0.c2ln?card=4111111111111111`,
        culprit: `pay(card=4111 1111 1111 1111) token=${SECRET}`,
      },
      { received: 1 },
    )
    const meta = scrubEvent(event, {}, policy())
    expect(event.transaction).toBe('/reset/[Filtered]?card=[Filtered]')
    expect(event.culprit).toBe('pay(card=[Filtered]) token=[Filtered]')
    expect(meta).toMatchObject({ transaction: { '': { rem: expect.any(Array) } } })
    const route = normalizeEvent(
      { transaction: 'POST /reset/:token', culprit: 'reset(app/x)' },
      {
        received: 1,
      },
    )
    expect(scrubEvent(route, {}, policy())).toBeUndefined()
    expect([route.transaction, route.culprit]).toEqual(['POST /reset/:token', 'reset(app/x)'])
  })

  it('reads the response context like a request: Set-Cookie cookie by cookie, headers by key', () => {
    const event = normalizeEvent(
      {
        contexts: {
          response: {
            status_code: 500,
            headers: {
              'Set-Cookie': `sessionid=${SECRET}; Path=/; HttpOnly`,
              'X-Auth-Token': SECRET,
              'Content-Type': 'text/html',
            },
            cookies: { csrftoken: SECRET, theme: 'dark' },
            auth_token: SECRET,
          },
          app: { app_name: 'shop' },
        },
      },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    const list = normalizeEvent(
      {
        contexts: {
          response: { headers: { 'set-cookie': [`sid=1; Path=/`, `session=${SECRET}`] } },
        },
      },
      { received: 1 },
    )
    scrubEvent(list, {}, policy())
    expect(list.contexts).toEqual({
      response: { headers: { 'set-cookie': ['sid=1; Path=/', 'session=[Filtered]'] } },
    })
    expect(event.contexts).toEqual({
      response: {
        status_code: 500,
        headers: {
          'Set-Cookie': 'sessionid=[Filtered]; Path=/; HttpOnly',
          'X-Auth-Token': '[Filtered]',
          'Content-Type': 'text/html',
        },
        cookies: { csrftoken: '[Filtered]', theme: 'dark' },
        auth_token: '[Filtered]',
      },
      app: { app_name: 'shop' },
    })
  })

  it("scrubs an exception mechanism's data and description", () => {
    const event = normalizeEvent(
      {
        exception: {
          values: [
            {
              type: 'E',
              value: 'v',
              mechanism: {
                type: 'generic',
                description: `connect postgres://app:${SECRET}@db/x`,
                data: { password: SECRET, url: 'https://example.com' },
              },
            },
          ],
        },
      },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    expect(event.exception?.values[0]?.mechanism).toEqual({
      type: 'generic',
      description: 'connect postgres://app:[Filtered]@db/x',
      data: { password: '[Filtered]', url: 'https://example.com' },
    })
  })

  it('filters a card security code by its key (cvv, cvc), not other short numbers', () => {
    expect(scrubExtra({ cvv: '123', card_cvc: 456, cvv2: '789', qty: '123' }).value).toEqual({
      cvv: '[Filtered]',
      card_cvc: '[Filtered]',
      cvv2: '[Filtered]',
      qty: '123',
    })
  })

  it('scrubs the parts of a cookie string that are no name=value pair by value', () => {
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${SECRET}\n-----END RSA PRIVATE KEY-----`
    // A Cookie header with parts that are no pairs stays a header (Relay does not parse it).
    const event = normalizeEvent(
      { request: { headers: { Cookie: `theme=dark; Bearer ${SECRET}; ${pem}` } } },
      { received: 1 },
    )
    scrubEvent(event, {}, policy())
    expect(event.request?.['headers']).toEqual({
      Cookie: 'theme=dark; Bearer [Filtered]; [Filtered]',
    })
    const sent = normalizeEvent(
      { request: { cookies: `lang=en; postgres://u:${SECRET}@db/x` } },
      { received: 1 },
    )
    scrubEvent(sent, {}, policy())
    expect(sent.request?.['cookies']).toBe('lang=en; postgres://u:[Filtered]@db/x')
  })
})

describe('the joined-text scan', () => {
  // Every value rule's hit, alone or among other strings, is found by its detector: a miss
  // would leave a secret in place, since strings the scan clears are never tested one by one.
  const hits: [string, string][] = [
    ['@creditcard', 'paid with 4111 1111 1111 1111 today'],
    ['@usssn', 'ssn 078-05-1120'],
    ['@iban', 'send to DE89 3704 0044 0532 0130 00 now'],
    ['@pemkey', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow'],
    ['@urlauth', 'postgres://app:s3cr3tpw@db:5432/x'],
    ['@bearer', 'Authorization: bEaReR\tabc.def'],
    ['@password', 'login failed password=hunter2'],
    ['@password', "{'api-key' :  'k1'}"],
    ['@password', 'Token:\u00a0x9'],
    ['@apitoken', `env ${'npm_'}${'Ab1'.repeat(12)}`],
    ['@apitoken', `${'AIza'}${'SyD-9tSrke72PouQMnMX'}${'-a7eZSW0jkFMBWY'}`],
  ]
  it.each(hits)('%s in %j', (id, text) => {
    const joined = ['const a = b', text, 'x: 1'].join(JOIN)
    const found = DEFAULT_DETECTORS.filter((d) => d.scan(joined)).flatMap((d) => d.rules)
    expect(found.map((r) => r.id)).toContain(id)
    const { value, meta } = scrubExceptionValue(text)
    expect(value).toContain('[Filtered]')
    expect(JSON.stringify(meta)).toContain(id)
  })

  it('finds nothing in a stock SDK error event', () => {
    const strings = [
      'const groups = await run(Sentry)',
      "Sentry.init({ dsn, release: 'conformance@1.0.0', environment: 'test' })",
      '2026-11-22T09:34:47.127Z',
      'cd85b719961d450eb35e2fc3504ef746',
      'const dsn = process.env.SENTRY_TEST_DSN',
    ]
    expect(DEFAULT_DETECTORS.filter((d) => d.scan(strings.join(JOIN)))).toEqual([])
  })

  it('looks back from each separator for a key word', () => {
    expect(keyBeforeSeparator('x = 1; password = 2')).toBe(true)
    expect(keyBeforeSeparator('"AUTH": 1')).toBe(true)
    expect(keyBeforeSeparator('\tapi_key :9')).toBe(true)
    expect(keyBeforeSeparator('dsn = 1; time: 2')).toBe(false)
    expect(keyBeforeSeparator('password    = 2')).toBe(false)
  })
})

describe('log template parameters', () => {
  /** Scrubs an event with this logentry; returns the logentry and the remarks. */
  function scrubLog(logentry: Record<string, unknown>) {
    const event = normalizeEvent({ logentry }, { received: 1 })
    const meta = scrubEvent(event, {}, policy())
    return { le: event.logentry, meta: meta as Record<string, unknown> | undefined }
  }

  it('filters the parameter a placeholder after a secret name takes, and its rendering', () => {
    // Python's logging: the SDK renders, the server can render the same again.
    const { le, meta } = scrubLog({
      message: 'login for %s with password %s from %s',
      params: ['bob', 'hunter2-77', '10.0.0.1'],
      formatted: 'login for bob with password hunter2-77 from 10.0.0.1',
    })
    expect(le?.params).toEqual(['bob', '[Filtered]', '10.0.0.1'])
    expect(le?.formatted).toBe('login for bob with password [Filtered] from 10.0.0.1')
    expect(le?.message).toBe('login for %s with password %s from %s')
    expect(meta).toEqual({
      logentry: {
        params: { 1: { '': { rem: [['@password', 's']] } } },
        formatted: { '': { rem: [['@password', 's']] } },
      },
    })
  })

  it('keeps named parameters (Python logging with a mapping) and filters the secret one', () => {
    const { le, meta } = scrubLog({
      message: 'login %(user)s with secret %(pw)s',
      params: { user: 'erin', pw: 'DICT-PW-1' },
      formatted: 'login erin with secret DICT-PW-1',
    })
    expect(le?.params).toEqual({ user: 'erin', pw: '[Filtered]' })
    expect(le?.formatted).toBe('login erin with secret [Filtered]')
    expect(meta).toEqual({
      logentry: {
        params: { pw: { '': { rem: [['@password', 's']] } } },
        formatted: { '': { rem: [['@password', 's']] } },
      },
    })
    // A mapping sent without its rendering is rendered from it.
    const bare = normalizeEvent(
      { logentry: { message: 'user %(user)s', params: { user: 'erin' } } },
      { received: 1 },
    )
    expect(bare.logentry?.formatted).toBe('user erin')
  })

  it('reads curly templates, and replaces a rendering it cannot reproduce by occurrence', () => {
    const { le } = scrubLog({
      message: 'calling {} with api_key: {}',
      params: ['billing', 'k-991-secret'],
      formatted: 'calling "billing" with api_key: k-991-secret',
    })
    expect(le?.params).toEqual(['billing', '[Filtered]'])
    expect(le?.formatted).toBe('calling "billing" with api_key: [Filtered]')
  })

  it("keeps a Java template's password={} and token={} as sent, filtering the parameters", () => {
    // sentry-logback: SLF4J's `{}` right after `=`, which the in-string rule would take.
    const { le } = scrubLog({
      message: 'login failed for {} password={} token={}',
      params: ['bob', 'hunter2', 't-1234'],
      formatted: 'login failed for bob password=hunter2 token=t-1234',
    })
    expect(le?.message).toBe('login failed for {} password={} token={}')
    expect(le?.params).toEqual(['bob', '[Filtered]', '[Filtered]'])
    expect(le?.formatted).toBe('login failed for bob password=[Filtered] token=[Filtered]')
  })

  it('leaves parameters whose placeholder follows no secret name', () => {
    const { le, meta } = scrubLog({
      message: 'token count %s for %s',
      params: ['12', 'alice'],
      formatted: 'token count 12 for alice',
    })
    expect(le?.params).toEqual(['12', 'alice'])
    expect(le?.formatted).toBe('token count 12 for alice')
    expect(meta).toBeUndefined()
  })

  it('filters a parameter the template names after token=, rendered by the server', () => {
    const { le } = scrubLog({
      message: 'invoice %s failed: token=%s',
      params: ['INV-7', 't-5e6f7a'],
    })
    expect(le?.params).toEqual(['INV-7', '[Filtered]'])
    expect(le?.formatted).toBe('invoice INV-7 failed: token=[Filtered]')
    expect(JSON.stringify(le)).not.toContain('t-5e6f7a')
  })
})

describe('e-mail addresses in the log message', () => {
  function scrubMessage(raw: Record<string, unknown>, over: Partial<PrivacySettings> = {}) {
    const event = normalizeEvent(raw, { received: 1 })
    const meta = scrubEvent(event, {}, policy(over))
    return { event, meta: meta as Record<string, unknown> | undefined }
  }

  it("masks them in the rendered text (Relay's @email:replace), not in the parameters", () => {
    const { event, meta } = scrubMessage({
      logentry: {
        message: 'password reset mailed to %s (ticket %s)',
        params: ['jane.doe+billing@mail.example.co.uk', 'T-19'],
        formatted: 'password reset mailed to jane.doe+billing@mail.example.co.uk (ticket T-19)',
      },
    })
    expect(event.logentry?.formatted).toBe('password reset mailed to [email] (ticket T-19)')
    expect(event.logentry?.message).toBe('password reset mailed to %s (ticket %s)')
    expect(event.logentry?.params).toEqual(['jane.doe+billing@mail.example.co.uk', 'T-19'])
    expect(meta).toEqual({ logentry: { formatted: { '': { rem: [['@email', 's']] } } } })
  })

  it('masks a plain message, sent as a string or as a template without parameters', () => {
    const top = scrubMessage({ message: 'signup failed for bob@example.org, again' })
    expect(top.event.logentry?.formatted).toBe('signup failed for [email], again')
    const plain = scrubMessage({ logentry: { message: 'bounce from ops@example.io' } })
    expect(plain.event.logentry?.message).toBe('bounce from [email]')
    expect(plain.meta).toEqual({ logentry: { message: { '': { rem: [['@email', 's']] } } } })
  })

  it('keeps package versions, scoped names, hosts and addresses outside the message', () => {
    const text = 'upgrade @sentry/node@8.0.0 via git@github.com:org/repo and user@localhost'
    const { event, meta } = scrubMessage({
      message: text,
      user: { email: 'kept@example.com' },
      exception: { values: [{ type: 'Error', value: 'no mailbox x@example.com' }] },
    })
    expect(event.logentry?.formatted).toBe(text.replace('git@github.com', '[email]'))
    expect(event.user?.['email']).toBe('kept@example.com')
    expect(event.exception?.values[0]?.value).toBe('no mailbox x@example.com')
    expect(meta).toEqual({ logentry: { formatted: { '': { rem: [['@email', 's']] } } } })
  })

  it('keeps them when the default rules are off', () => {
    const { event, meta } = scrubMessage(
      { message: 'reply to a@example.com' },
      { scrubDefaults: false },
    )
    expect(event.logentry?.formatted).toBe('reply to a@example.com')
    expect(meta).toBeUndefined()
  })

  it('stays linear on long runs of address characters', () => {
    const hostile = [
      `${'a'.repeat(200_000)}@`,
      'a@'.repeat(100_000),
      `x@${'a-'.repeat(100_000)}`,
      `x@${'a.'.repeat(100_000)}`,
    ]
    for (const input of hostile) {
      const started = performance.now()
      input.replace(EMAIL, '[email]')
      expect(performance.now() - started).toBeLessThan(1_000)
    }
  })
})

describe('the token rule on hostile text', () => {
  it('stays linear where candidate tokens repeat back to back', () => {
    const rule = DEFAULT_DETECTORS.flatMap((d) => d.rules).find((r) => r.id === '@apitoken')
    expect(rule).toBeDefined()
    const size = 1_000_000
    const hostile = [
      'eyJ-',
      'xoxb-1-',
      'eyJa.eyJa.',
      'sntrys_a/',
      'AIza-',
      'sk-proj-',
      'glpat-',
      'x-ghp_',
    ].map((unit) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size))
    for (const input of hostile) {
      const started = performance.now()
      input.replace(rule?.re ?? /$^/g, () => '[Filtered]')
      // Tried at every repeat, each try reading up to its bound ahead, 1 MB of `eyJ-` takes
      // about 3 s; tried where a run of token characters starts, milliseconds.
      expect(performance.now() - started).toBeLessThan(1_000)
    }
  })
})

describe('the detectors never miss', () => {
  // Random strings over an alphabet dense in what the rules look for (digits, separators, key
  // words, case changes, the join character itself): whenever a rule's own regex matches one
  // string, its detector finds something in the joined text. Seeded, so a failure repeats.
  let seed = 20261126
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  const pieces = [
    '4111',
    '1111',
    '5555',
    '4444',
    '078',
    '05',
    '1120',
    '-',
    ' ',
    '\t',
    '\u00a0',
    JOIN,
    'DE89',
    '3704',
    'GB82',
    'WEST',
    'Bearer',
    'bEaReR',
    'password',
    'Passwd',
    'api_key',
    'TOKEN',
    'auth',
    ':',
    '=',
    '"',
    "'",
    '//',
    'https:',
    '@',
    'x',
    'Q',
    '-----BEGIN RSA PRIVATE KEY-----',
    '9',
    '.',
  ]
  const randomString = () =>
    Array.from({ length: 1 + rand(12) }, () => pieces[rand(pieces.length)]).join('')
  it('finds every match of 3000 random events', () => {
    let matched = 0
    for (let n = 0; n < 3000; n++) {
      const strings = Array.from({ length: 1 + rand(4) }, randomString)
      const joined = strings.join(JOIN)
      for (const d of DEFAULT_DETECTORS) {
        const hit = d.rules.some((r) =>
          strings.some((s) => new RegExp(r.re.source, r.re.flags.replace('g', '')).test(s)),
        )
        if (!hit) continue
        matched++
        expect(d.scan(joined), `${d.rules.map((r) => r.id)} in ${JSON.stringify(strings)}`).toBe(
          true,
        )
      }
    }
    // The alphabet does produce matches: the check above ran on many.
    expect(matched).toBeGreaterThan(300)
  })
})
