import { describe, expect, it } from 'vitest'
import { eventBody, osCause, stacktrace, tagsOf } from './event-view.ts'

describe('event view', () => {
  it('shows the newest 200 frames of a deep stack, crash site first', () => {
    const frames = Array.from({ length: 1000 }, (_, i) => ({
      filename: `f${i}.js`,
      lineno: i,
      in_app: true,
    }))
    const out = stacktrace({ frames }).value
    expect(out.match(/class="frame app"/g)).toHaveLength(200)
    expect(out.indexOf('f999.js')).toBeLessThan(out.indexOf('f998.js'))
    expect(out).not.toContain('f799.js')
    expect(out).toContain('800 older frames not shown')
  })

  it('shows the minified frames as sent, folded, beside the source-mapped ones', () => {
    const out = eventBody(
      {
        platform: 'javascript',
        exception: {
          values: [
            {
              type: 'TypeError',
              value: 'x is undefined',
              stacktrace: {
                frames: [{ filename: 'src/cart.ts', function: 'checkout', lineno: 12 }],
              },
              raw_stacktrace: {
                frames: [
                  {
                    filename: 'https://shop.example/assets/app-4f2a.js',
                    function: 'P_',
                    lineno: 1,
                  },
                ],
              },
            },
          ],
        },
      },
      null,
    ).value
    expect(out).toContain('src/cart.ts')
    expect(out).toContain('<details class="raw-frames">')
    expect(out.indexOf('app-4f2a.js')).toBeGreaterThan(out.indexOf('Minified frames, as sent'))
    const plain = eventBody(
      { exception: { values: [{ type: 'E', stacktrace: { frames: [{ filename: 'a.js' }] } }] } },
      null,
    ).value
    expect(plain).not.toContain('raw-frames')
  })

  it('folds a Cargo crate marked in_app (the Rust panic hook) into the library frames', () => {
    const out = stacktrace({
      frames: [
        { function: 'app::compute_total', abs_path: '/srv/app/src/main.rs', in_app: true },
        {
          function: 'sentry_panic::PanicIntegration::event_from_panic_info',
          abs_path: '/home/u/.cargo/registry/src/index.crates.io-1/sentry-panic/src/lib.rs',
          in_app: true,
        },
      ],
    }).value
    expect(out.match(/class="frame app"/g)).toHaveLength(1)
    expect(out).toMatch(/1 library frame<\/summary>.*sentry_panic/s)
  })

  it("says what the operating system said of a native crash, and shows a mechanism's data", () => {
    expect(
      osCause({
        signal: { number: 11, code: 1, name: 'SIGSEGV', code_name: 'SEGV_MAPERR' },
        errno: { number: 2, name: 'ENOENT' },
        mach_exception: { exception: 1, code: 1, subcode: 8, name: 'EXC_BAD_ACCESS' },
        ns_error: { code: 4, domain: 'NSCocoaErrorDomain' },
      }),
    ).toEqual([
      'signal SIGSEGV (11, SEGV_MAPERR)',
      'errno ENOENT (2)',
      'Mach exception EXC_BAD_ACCESS (1, code 0x1, subcode 0x8)',
      'NSError NSCocoaErrorDomain 4',
    ])
    expect(osCause({ signal: { number: 6 } })).toEqual(['signal (6)'])
    expect(osCause({ signal: {}, errno: 'x' })).toEqual([])
    const out = eventBody(
      {
        exception: {
          values: [
            {
              type: 'Crash',
              value: 'boom',
              mechanism: {
                type: 'signalhandler',
                handled: false,
                description: '<b>segfault</b>',
                help_link: 'javascript:alert(1)',
                data: { relevant_address: '0x0' },
                meta: { signal: { number: 11, name: '<SIGSEGV>' } },
              },
            },
          ],
        },
      },
      null,
    ).value
    expect(out).toContain('signal &lt;SIGSEGV&gt; (11)')
    expect(out).toContain('&lt;b&gt;segfault&lt;/b&gt;')
    expect(out).not.toContain('href="javascript')
    expect(out).toContain('relevant_address')
  })

  it('shows the members of an exception group as such, not as causes', () => {
    const mech = (id: number, parent?: number, group = false) => ({
      type: 'chained',
      exception_id: id,
      ...(parent === undefined ? {} : { parent_id: parent, source: `exceptions[${id - 1}]` }),
      ...(group ? { is_exception_group: true } : {}),
    })
    const out = eventBody(
      {
        exception: {
          values: [
            { type: 'OSError', value: 'disk', mechanism: mech(3, 2) },
            { type: 'KeyError', value: 'k', mechanism: mech(2, 0) },
            { type: 'ValueError', value: 'v', mechanism: mech(1, 0) },
            {
              type: 'ExceptionGroup',
              value: 'many (2 sub-exceptions)',
              mechanism: mech(0, undefined, true),
            },
          ],
        },
      },
      null,
    ).value
    expect(out).toContain('exception group #0</span> ExceptionGroup: many')
    expect(out).toContain('In exception group #0 (exceptions[0]): </span>ValueError: v')
    expect(out).toContain('In exception group #0 (exceptions[1]): </span>KeyError: k')
    // KeyError's own cause (parent 2 is no group) stays a cause.
    expect(out).toContain('Caused by </span>OSError: disk')
  })

  it('shows a suppressed exception as suppressed, not as the cause', () => {
    // What sentry-java sends under Spring WebFlux: Reactor's assembly trace, suppressed.
    const out = eventBody(
      {
        exception: {
          values: [
            {
              type: 'FluxOnAssembly$OnAssemblyException',
              value: 'Error has been observed at the following site(s)',
              mechanism: { type: 'suppressed', exception_id: 1, parent_id: 0 },
            },
            {
              type: 'IllegalArgumentException',
              value: 'no order 123',
              mechanism: { type: 'Spring6WebFluxExceptionResolver', exception_id: 0 },
            },
          ],
        },
      },
      null,
    ).value
    expect(out).toContain('Suppressed: </span>FluxOnAssembly$OnAssemblyException')
    expect(out).not.toContain('Caused by')
  })

  it("marks the main thread and shows a thread's state as text", () => {
    const out = eventBody(
      { threads: { values: [{ id: 1, name: 'main', main: true, state: '<BLOCKED>' }] } },
      null,
    ).value
    expect(out).toContain('<span class="badge">main</span>')
    expect(out).toContain('&lt;BLOCKED&gt;')
  })

  it('reads tags as pairs or as an object', () => {
    expect(tagsOf({ tags: [['a', '1'], ['b', 2], 'junk'] })).toEqual([
      ['a', '1'],
      ['b', '2'],
    ])
    expect(tagsOf({ tags: { a: '1', n: { x: 1 } } })).toEqual([
      ['a', '1'],
      ['n', '{"x":1}'],
    ])
    expect(tagsOf({ tags: 'nope' })).toEqual([])
  })

  it('renders any payload shape without throwing, escaping every value', () => {
    for (const payload of [null, 42, 'x', [], { exception: 'x', breadcrumbs: 3, contexts: [] }]) {
      expect(() => eventBody(payload, null)).not.toThrow()
    }
    const out = eventBody(
      { user: { '<k>': '<v>' }, contexts: { '<c>': { a: '<b>' } } },
      '<w>',
    ).value
    expect(out).not.toMatch(/<(k|v|c|b|w)>/)
    expect(out).toContain('&lt;v&gt;')
  })

  it('names a native frame without a file by its binary and address, and hides line 0', () => {
    const frame = {
      function: '-[UITableView reload] + 334',
      package: '/System/Library/Frameworks/UIKitCore.framework/UIKitCore',
      instruction_addr: '0x7fff248b1f42',
      lineno: 0,
    }
    const out = stacktrace({ frames: [frame] }).value
    expect(out).toContain('<span>UIKitCore</span>')
    expect(out).toContain('0x7fff248b1f42')
    expect(out).not.toContain(':0')
    expect(out).not.toContain('<span>?</span>')
  })

  it('lists every thread with its stack, also when an exception shows the crash', () => {
    const out = eventBody(
      {
        exception: { values: [{ type: 'E', stacktrace: { frames: [{ function: 'crash' }] } }] },
        threads: {
          values: [
            {
              id: 2,
              name: 'main',
              crashed: true,
              current: true,
              stacktrace: { frames: [{ function: 'crash' }] },
            },
            {
              id: 48,
              name: 'pool-2-thread-1',
              stacktrace: { frames: [{ function: 'park' }, { function: 'await' }] },
            },
            { id: null, name: 'binder:1_4' },
          ],
        },
      },
      null,
    ).value
    expect(out).toContain('<h2>Threads</h2>')
    expect(out).toMatch(
      /main <span class="muted">#2<\/span> <span class="badge error">crashed<\/span>/,
    )
    expect(out).toContain('pool-2-thread-1')
    expect(out).toContain('2 frames')
    expect(out).toContain('<span class="fn">park</span>')
    expect(out).toContain('binder:1_4')
    expect(out).toContain('no stack trace')
  })

  it('shows a security report and no heading for an empty message', () => {
    const out = eventBody(
      {
        message: '',
        csp: { violated_directive: "script-src 'self'", blocked_uri: 'https://evil.example' },
        hpkp: { hostname: 'example.com', known_pins: ['pin-sha256="x"'] },
      },
      null,
    ).value
    expect(out).toContain('<h2>CSP report</h2>')
    expect(out).toContain('violated_directive')
    expect(out).toContain('https://evil.example')
    expect(out).toContain('<h2>HPKP report</h2>')
    expect(out).not.toContain('<h2>Message</h2>')
  })

  it('names JVM and .NET frames by class, others by file, as Sentry does', () => {
    const frame = {
      module: 'io.shop.ApiRequest',
      filename: 'ApiRequest.java',
      function: 'perform',
      lineno: 8,
    }
    expect(stacktrace({ frames: [frame] }, 'java').value).toContain(
      '<span>io.shop.ApiRequest</span>',
    )
    expect(stacktrace({ frames: [{ ...frame, platform: 'csharp' }] }, 'other').value).toContain(
      '<span>io.shop.ApiRequest</span>',
    )
    expect(stacktrace({ frames: [frame] }, 'python').value).toContain(
      '<span>ApiRequest.java</span>',
    )
  })

  it('shows the template frame of an old Django client', () => {
    const template = {
      filename: 'shop/cart.html',
      lineno: 12,
      context_line: '{{ cart.total }}',
      pre_context: ['<p>'],
    }
    const out = eventBody({ template }, null).value
    expect(out).toContain('<h2>Template</h2>')
    expect(out).toContain('shop/cart.html')
    expect(out).toContain('{{ cart.total }}')
  })

  it('names an unsymbolicated frame by the loaded binary its address falls in', () => {
    const out = eventBody(
      {
        platform: 'native',
        exception: {
          values: [
            {
              type: 'SIGSEGV',
              stacktrace: {
                frames: [
                  { instruction_addr: '0x10' },
                  { instruction_addr: '0xE5ED39A3' },
                  { instruction_addr: 4096 },
                ],
              },
            },
          ],
        },
        debug_meta: {
          images: [
            { image_addr: '0xe5d95000', image_size: 6975488, code_file: '/apex/lib/libart.so' },
            { image_addr: 4096, image_size: '0x100', code_file: 'C:\\app\\game.exe' },
            { image_addr: '0x0', image_size: 0, code_file: '/zero-size.so' },
            { image_addr: 'nope', image_size: 5, code_file: '/bad.so' },
            null,
          ],
        },
      },
      null,
    ).value
    expect(out).toContain('<span>libart.so</span> <span class="muted mono">0xE5ED39A3</span>')
    expect(out).toContain('<span>game.exe</span>')
    expect(out).toContain('<span>?</span> <span class="muted mono">0x10</span>')
    expect(out).not.toContain('zero-size')
  })

  it("borrows the stack of the thread the stackless exception names, else the crashed one's", () => {
    const threads = {
      values: [
        { id: 5, stacktrace: { frames: [{ function: 'named_thread' }] } },
        { id: 6, crashed: true, stacktrace: { frames: [{ function: 'crashed_thread' }] } },
      ],
    }
    const section = (out: string) =>
      out.slice(out.indexOf('<h2>Exception</h2>'), out.indexOf('<h2>Threads</h2>'))
    const named = eventBody(
      { exception: { values: [{ type: 'E', thread_id: 5 }] }, threads },
      null,
    ).value
    expect(section(named)).toContain('named_thread')
    expect(section(named)).not.toContain('crashed_thread')
    const crashed = eventBody({ exception: { values: [{ type: 'E' }] }, threads }, null).value
    expect(section(crashed)).toContain('crashed_thread')
    // Two exceptions, or one with frames of its own, keep their own stacks.
    const chained = eventBody(
      { exception: { values: [{ type: 'A' }, { type: 'B' }] }, threads },
      null,
    ).value
    expect(section(chained)).not.toContain('crashed_thread')
  })

  it('escapes register names and values and skips non-text ones', () => {
    const out = stacktrace({
      frames: [{ function: 'f' }],
      registers: { '<r>': '<v>', pc: '0x10', n: 5 },
    }).value
    expect(out).toContain('Registers (2)')
    expect(out).toContain('&lt;r&gt;')
    expect(out).not.toMatch(/<(r|v)>/)
  })
})

describe('empty fields an SDK sends', () => {
  it('shows no User section for an empty user and no row for an empty fingerprint', () => {
    // sentry-java 8 sends both on every event (the user empty without PII).
    const out = String(eventBody({ message: 'm', user: {}, fingerprint: [] }, null))
    expect(out).not.toContain('<h2>User</h2>')
    expect(out).not.toContain('fingerprint')
    const named = String(eventBody({ message: 'm', user: { id: '7' }, fingerprint: ['a'] }, null))
    expect(named).toContain('<h2>User</h2>')
    expect(named).toContain('fingerprint')
  })
})
