/**
 * Hand-made events in the shapes real SDKs and old clients send, and in the wrong shapes a
 * buggy or hostile client sends, for the corpus render test (event-corpus-render.test.ts).
 * None is copied from upstream: each reproduces a *shape* seen in public sample events
 * (getsentry/sentry `src/sentry/data/samples/*.json`: legacy `sentry.interfaces.*` keys and
 * tags as pairs in python.json, wrong-typed interfaces in invalid-interfaces.json; Snuba
 * Kafka examples in getsentry/sentry-kafka-schemas `examples/events/1/`: null threads, null
 * tag keys, null values) or a wrong type the protocol forbids.
 */
export const EVENT_SHAPES: Record<string, Record<string, unknown>> = {
  'legacy interface keys and tags as pairs': {
    tags: [
      ['level', 'error'],
      ['server_name', 'web01'],
    ],
    'sentry.interfaces.Message': { message: 'legacy %s', params: ['message'] },
    'sentry.interfaces.Stacktrace': {
      frames: [{ function: 'f', filename: 'a.py', lineno: 3, colno: null, vars: { "'x'": null } }],
    },
    'sentry.interfaces.User': { id: 1, ip_address: '{{auto}}' },
    'sentry.interfaces.Http': { url: 'http://x/', method: 'GET', headers: [['Host', 'x']] },
  },
  'wrong-typed interfaces': {
    level: 'error',
    platform: 'python',
    breadcrumbs: {
      values: [
        { message: 'missing timestamp' },
        { message: 'bad level', timestamp: '2017-08-04T07:37:08Z', level: 'invalid' },
        { message: 'bad data', timestamp: '2017-08-04T07:37:08Z', data: 'not a mapping' },
      ],
    },
    debug_meta: {
      is_debug_build: 'nope',
      images: [{ type: '' }, { type: 'symbolic', image_size: '0xbeef' }, null, 5],
    },
    exception: {
      values: [
        {},
        { type: '', value: '' },
        { type: 'ValueError', mechanism: { type: '', handled: 'yes', description: 42 } },
        { type: 'ValueError', stacktrace: { frames: [{}, { unknown: 'x' }, null, 'frame'] } },
      ],
      exc_omitted: [1],
    },
    logentry: { params: ['no message nor formatted'] },
    request: { method: 7, query_string: [['foo', 'bar'], ['bam', null], null] },
    sdk: { name: 'sentry.python', version: 0.1, integrations: 'no list', packages: 'no list' },
    template: { lineno: 0, context_line: [2, 'x'], pre_context: [1, 'y'] },
    user: { email: 12, ip_address: 'not-an-ip' },
  },
  'null threads, null tag keys and null values': {
    message: 'nulls',
    threads: null,
    tags: [
      [null, 'v'],
      ['k', null],
      [null, null],
    ],
    contexts: { os: null, device: { name: null }, trace: null },
    user: null,
    request: null,
    extra: null,
    fingerprint: null,
    release: null,
    environment: null,
  },
  'threads with null values and stack frames as strings and floats': {
    threads: {
      values: [
        null,
        { id: 'main', crashed: 'true', stacktrace: { frames: [{ lineno: '12', colno: 3.5 }] } },
        { id: 1e308, name: -0, stacktrace: { frames: null, registers: { rip: 1 } } },
      ],
    },
    exception: {
      values: [
        {
          type: 'E',
          value: 'v',
          stacktrace: {
            frames: [
              { function: 'f', lineno: '42', colno: 1.5, filename: 7 },
              { function: null, lineno: -1, colno: 'NaN', in_app: 'yes' },
              { function: 'g', lineno: 1e308, colno: -0, pre_context: 'not a list' },
            ],
          },
        },
      ],
    },
  },
  'exception values as an object and breadcrumbs as an array': {
    exception: { values: { type: 'Boom', value: 'object not array' } },
    breadcrumbs: [{ message: 'crumb', timestamp: 1e308 }, null, 'crumb', { timestamp: -1 }],
  },
  'exception as a bare list and a single exception object': {
    exception: [{ type: 'ListError', value: 'bare list' }],
    stacktrace: { frames: { lineno: 1 } },
  },
  'contexts with non-object values': {
    message: 'contexts',
    contexts: {
      os: 'Linux',
      device: 5,
      runtime: ['node'],
      browser: true,
      trace: { trace_id: 12, span_id: null, op: { x: 1 } },
      app: { app_start_time: 'not a date' },
    },
  },
  'tags as pairs of non-strings and as an object of objects': {
    message: 'tags',
    tags: [[1, 2], [true, { a: 1 }], ['only-one'], ['a', 'b', 'c'], 'pair', null],
  },
  'tags as an object with nested objects': {
    message: 'tags object',
    tags: { a: { b: 'c' }, n: 1, list: [1, 2], nul: null, '': 'empty key', ['x'.repeat(500)]: 'y' },
  },
  'request headers as a list of pairs with odd values': {
    message: 'request',
    request: {
      url: 12,
      method: ['GET'],
      headers: [['Content-Type', 'text/plain'], ['X-Number', 5], [null, 'x'], ['only']],
      cookies: [['a', 'b']],
      query_string: { a: ['b'] },
      data: '\u0000binary',
      env: 'REMOTE_ADDR',
    },
  },
  'user with auto ip and wrong types': {
    message: 'user',
    user: {
      id: { nested: 1 },
      ip_address: '{{auto}}',
      email: ['a@b'],
      username: 1e308,
      geo: 'Paris',
      data: 'x',
    },
  },
  'top-level fields of the wrong type': {
    timestamp: 'yesterday',
    level: 5,
    platform: { x: 1 },
    logger: ['root'],
    transaction: 42,
    server_name: null,
    release: { version: '1.0' },
    dist: 5,
    environment: ['prod'],
    message: { formatted: 7 },
    culprit: true,
    modules: 'none',
    extra: 'none',
    fingerprint: 'single',
    sdk: 'sentry.js',
    debug_meta: [],
    contexts: [],
    user: 'alice',
    request: 'GET /',
  },
  'numbers as huge strings and non-finite-looking values': {
    message: '1e308',
    timestamp: '99999999999999999999',
    start_timestamp: -0,
    received: 1e308,
    level: 'NaN',
    tags: { big: '1e308', neg: '-0' },
    extra: { nan: 'NaN', inf: 'Infinity', big: 1e308, negzero: -0 },
  },
  'arrays of nulls everywhere': {
    message: 'nulls',
    exception: { values: [null, null] },
    breadcrumbs: { values: [null] },
    fingerprint: [null, null],
    threads: { values: [null] },
    tags: [null],
    modules: { a: null },
    sdk: { name: 'x', version: null, packages: [null], integrations: [null, 1] },
  },
  'very long displayed strings': {
    transaction: 't'.repeat(100_000),
    culprit: 'c'.repeat(100_000),
    logger: 'l'.repeat(100_000),
    message: 'm'.repeat(100_000),
    release: 'r'.repeat(1000),
    environment: 'e'.repeat(1000),
    server_name: 's'.repeat(10_000),
    exception: { values: [{ type: 'T'.repeat(10_000), value: 'V'.repeat(100_000) }] },
  },
  'unicode edge cases in displayed strings': {
    message: 'lone \ud800 surrogate \udfff, NUL \u0000, RTL \u202e\u200f mark, BOM \ufeff',
    transaction: '\ud800\u0000\u202e',
    culprit: '\udc00',
    logger: '\u0000',
    release: 'rel\ud800\u0000',
    environment: 'env\u202e',
    server_name: '\u0000',
    tags: { '\ud800': '\u0000', 'k\u202e': 'v\ud800' },
    user: { id: '\ud800', email: '\u0000@x', username: '\u202e' },
    exception: {
      values: [
        {
          type: 'Err\ud800',
          value: '\u0000\u202e',
          module: '\udfff',
          stacktrace: { frames: [{ function: '\ud800', filename: '\u0000', abs_path: '\u202e' }] },
        },
      ],
    },
    fingerprint: ['\ud800', '\u0000'],
  },
  'native crash shape: debug images, registers, addresses': {
    platform: 'native',
    level: 'fatal',
    exception: {
      values: [
        {
          type: 'EXC_BAD_ACCESS',
          value: 'SIGSEGV',
          mechanism: { type: 'mach', meta: { signal: { number: 11 }, mach_exception: 'x' } },
          stacktrace: {
            frames: [
              { instruction_addr: '0x100', package: '/usr/lib/libc.so', symbol_addr: 256 },
              { instruction_addr: 4096, image_addr: '0xzz', function: '<redacted>' },
            ],
            registers: { rip: '0x1', rsp: 42, bad: null },
          },
        },
      ],
    },
    debug_meta: {
      images: [
        { type: 'elf', code_file: '/lib/x.so', image_addr: '0x0', image_size: 'big', debug_id: 5 },
        { type: 'macho', uuid: 'not-a-uuid', image_vmaddr: -1 },
      ],
      sdk_info: 'x',
    },
  },
  'csp report shape': {
    csp: {
      'document-uri': 'http://x/',
      'violated-directive': 5,
      'blocked-uri': null,
      'effective-directive': ['img-src'],
    },
    logentry: { formatted: null, message: null },
  },
  'transaction with odd span timestamps': {
    type: 'transaction',
    transaction: '/odd',
    start_timestamp: 'bad',
    timestamp: 1e308,
    contexts: { trace: { trace_id: 'zz', span_id: 5, op: 'http', status: 1 } },
    spans: [
      { span_id: 'a', start_timestamp: -1, timestamp: 'x', op: null },
      null,
      'span',
      { start_timestamp: 1e308, timestamp: -0, data: 'x', tags: [['a', 'b']] },
    ],
    measurements: { lcp: { value: 'fast' }, fcp: 'x', '': { value: 1e308 } },
  },
  'timestamps at and past the edges of a date': {
    message: 'timestamps',
    timestamp: '0000-01-01T00:00:00Z',
    start_timestamp: '+275760-09-13T00:00:00Z',
    received: 253402300800,
    breadcrumbs: [
      { message: 'a', timestamp: '1969-12-31T23:59:59Z' },
      { message: 'b', timestamp: '2017-08-04T07:37:08+25:00' },
      { message: 'c', timestamp: '2017-02-30T00:00:00Z' },
      { message: 'd', timestamp: 8.64e15 },
      { message: 'e', timestamp: -8.64e15 },
    ],
  },
  'a timestamp past 9999 as a number': { message: 'far future', timestamp: 253402300800 },
  'a timestamp in milliseconds, not seconds': { message: 'ms', timestamp: Date.now() },
  'release and environment names Relay refuses': {
    message: 'release names',
    release: 'a/b\\c\n\t',
    environment: '..',
    dist: ' ',
    tags: { release: 'latest', environment: '.' },
  },
  'release of only dots': { message: 'dots', release: '..', environment: 'a/b' },
  'fingerprint templates and odd fingerprints': {
    message: 'fingerprints',
    fingerprint: [
      '{{ default }}',
      '{{default}}',
      '{{ transaction }}',
      '{{ type }}',
      '{{ bogus',
      5,
      1.5,
      true,
    ],
  },
  'sdk packages and integrations of odd shapes': {
    message: 'sdk',
    sdk: {
      name: ['x'],
      version: { v: 1 },
      packages: [{ name: 5, version: null }, 'pkg', null],
      integrations: { a: 1 },
    },
    modules: [['a', 'b']],
  },
  // Shapes the public sample corpora showed the issue page or the culprit getting wrong
  // (docs/old-client-events.md "Public sample corpora"); each is made up, none is copied.
  'a wrapper exception without frames around a cause with frames': {
    exception: {
      values: [
        {
          type: 'LookupError',
          stacktrace: {
            frames: [
              { filename: 'lib/x.rb', in_app: false },
              { filename: 'app/t.erb', lineno: 1, in_app: true },
            ],
          },
        },
        { type: 'Template::Error', value: 'wrapped', module: 'Template' },
      ],
    },
  },
  'a culprit sent by the client and an empty message': {
    culprit: 'handlers.js in onTick',
    message: '',
    platform: 'javascript',
    exception: {
      values: [
        {
          type: 'TypeError',
          value: 'x is undefined',
          stacktrace: { frames: [{ filename: 'a.js', function: 'f', in_app: true }] },
        },
      ],
    },
  },
  'javascript frames under another platform, no function names': {
    exception: {
      values: [
        {
          type: 'Error',
          value: 'boom',
          stacktrace: {
            frames: [
              {
                filename: 'app:///main.js',
                function: '?',
                lineno: 3,
                colno: 9,
                platform: 'javascript',
              },
            ],
          },
        },
      ],
    },
  },
  'many threads beside an exception, some without stacks or ids': {
    platform: 'java',
    exception: {
      values: [
        {
          type: 'IllegalStateException',
          value: 'x',
          thread_id: 1,
          stacktrace: { frames: [{ module: 'a.B', function: 'c', in_app: true }] },
        },
      ],
    },
    threads: {
      values: [
        {
          id: 1,
          name: 'main',
          crashed: true,
          current: true,
          stacktrace: { frames: [{ module: 'a.B', function: 'c' }] },
        },
        ...Array.from({ length: 60 }, (_, i) => ({
          id: i + 2,
          name: `worker-${i}`,
          stacktrace: { frames: [{ module: 'java.lang.Object', function: 'wait', lineno: -2 }] },
        })),
        { id: null, name: 'binder' },
        { name: null, stacktrace: null },
      ],
    },
  },
  'unsymbolicated native frames: package and address only, line 0': {
    platform: 'cocoa',
    exception: {
      values: [
        {
          type: 'NSError',
          stacktrace: {
            frames: [
              { function: '0', package: '???', lineno: 0, instruction_addr: '0x1', in_app: false },
              {
                raw_function: ' main + 170',
                package: 'App',
                lineno: 0,
                instruction_addr: '0x1041484ba',
              },
            ],
          },
        },
      ],
    },
  },
  'hpkp and expect-ct reports sent as events': {
    logentry: { formatted: 'pinning failed for example.test' },
    hpkp: {
      hostname: 'example.test',
      port: 443,
      known_pins: ['pin-sha256="AAAA"'],
      include_subdomains: false,
    },
    expectct: {
      hostname: 'example.test',
      scts: [{ version: 1, status: 'invalid', serialized_sct: 'AA==' }],
    },
    expectstaple: 'not an object',
    request: { url: 'https://example.test/', headers: [['Referer', 'https://example.test/a']] },
  },
  'a template frame, well-formed and with context lines of the wrong type': {
    message: 'TemplateSyntaxError',
    template: {
      abs_path: '/srv/t/cart.html',
      filename: 'cart.html',
      lineno: 4,
      context_line: '{% x %}',
      pre_context: [1, null],
      post_context: 'no list',
    },
    'sentry.interfaces.Template': { filename: 'legacy.html', lineno: 'one' },
  },
  'frames known only by address, images of hostile sizes': {
    platform: 'native',
    exception: {
      values: [
        {
          type: 'SIGABRT',
          mechanism: { type: 'signalhandler', synthetic: true },
          stacktrace: {
            frames: [
              { instruction_addr: '0xffffffffffffffff' },
              { instruction_addr: -1 },
              { instruction_addr: 1e300 },
              { instruction_addr: '0x1234' },
            ],
          },
        },
      ],
    },
    debug_meta: {
      images: [
        {
          image_addr: '0xfffffffffffffff0',
          image_size: '0xffffffffffffffff',
          code_file: '/wraps.so',
        },
        { image_addr: '0x1000', image_size: 1e300, code_file: '/huge.so' },
        { image_addr: '0x1000', image_size: '0x10000000000000000', code_file: '/too-long.so' },
        { image_addr: '0x1000', image_size: 4096, code_file: ['/not-a-string.so'] },
        { image_addr: '0x1000', image_size: 8192, code_file: '' },
      ],
    },
  },
  'an Apple crash: older images by name, registers, a stackless exception': {
    platform: 'cocoa',
    exception: { values: [{ type: 'EXC_BAD_ACCESS', thread_id: { id: 0 } }] },
    threads: {
      values: [
        {
          id: 0,
          crashed: true,
          stacktrace: {
            frames: [{ function: '<redacted>', instruction_addr: '0x1000' }],
            registers: { pc: '0x1000', sp: [1], '<b>': '<i>' },
          },
        },
      ],
    },
    debug_meta: {
      images: [
        { type: 'apple', name: '/App', image_addr: '0x1000', image_size: 4096, uuid: 7 },
        { type: 'symbolic', name: ['/x'], image_addr: '0x1000', image_size: 4096, id: null },
        { type: 'apple', name: '<script>', image_addr: 4096, image_size: '0x10' },
      ],
    },
  },
  'exception mechanisms: OS causes, exception groups, data, and their wrong shapes': {
    platform: 'native',
    exception: {
      values: [
        {
          type: 'SIGSEGV',
          value: 'Segfault',
          thread_id: 'main',
          mechanism: {
            type: 'signalhandler',
            handled: false,
            synthetic: true,
            help_link: 'javascript:alert(1)',
            data: { relevant_address: '0x0', '<b>': ['<i>'] },
            meta: {
              signal: { number: 11, code: 0, name: '<SIGSEGV>', code_name: null },
              errno: { number: 'x', name: 2 },
              mach_exception: { exception: 1, code: -1, subcode: 2 ** 60, name: 'EXC_BAD_ACCESS' },
              ns_error: { code: 1e308, domain: ['d'] },
            },
          },
        },
        {
          type: 'ExceptionGroup',
          value: 'many',
          mechanism: {
            type: 'chained',
            source: 'exceptions[1]',
            is_exception_group: 1,
            exception_id: 2,
            parent_id: '1',
            data: 'not a mapping',
            meta: 'not a mapping',
          },
        },
      ],
    },
  },
}
