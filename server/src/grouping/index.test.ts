import { describe, expect, it } from 'vitest'
import type { ExceptionValue, Frame, NormalizedEvent } from '../event/types.ts'
import { CURRENT_GROUPING_VERSION, groupEvent } from './index.ts'
import { groupingValuesV1 } from './strategies.ts'

// Events shaped like what stock SDKs send (after normalisation), built by hand.

let sequence = 0
function event(platform: string, fields: Partial<NormalizedEvent>): NormalizedEvent {
  sequence += 1
  return {
    event_id: sequence.toString(16).padStart(32, '0'),
    timestamp: 1_795_339_592 + sequence,
    platform,
    level: 'error',
    server_name: 'web-1',
    environment: 'production',
    tags: [],
    ...fields,
  }
}

const hash = (e: NormalizedEvent): string => groupEvent(e).hash

/** @sentry/node 11: absolute `filename`, `module` derived from it, `in_app` always set. */
const nodeInternals: Frame[] = [
  {
    filename: 'node:internal/modules/run_main',
    module: 'run_main',
    function: 'asyncRunEntryPointWithESMLoader',
    lineno: 117,
    colno: 5,
    in_app: false,
  },
  {
    filename: 'node:internal/process/task_queues',
    module: 'task_queues',
    function: 'process.processTicksAndRejections',
    lineno: 95,
    colno: 5,
    in_app: false,
  },
]
function nodeFrame(fn: string, lineno: number, file = 'orders'): Frame {
  return {
    filename: `/srv/shop/src/${file}.js`,
    module: file,
    function: fn,
    lineno,
    colno: 17,
    in_app: true,
    context_line: '  const total = order.items.length',
  }
}
function nodeError(type: string, value: string, frames: Frame[]): NormalizedEvent {
  const mechanism = { type: 'generic', handled: true }
  return event('node', {
    exception: { values: [{ type, value, stacktrace: { frames }, mechanism }] },
  })
}

/** sentry-python 2: `module`, relative `filename`, `abs_path`, context lines, `in_app` set. */
function pyFrame(module: string, fn: string, lineno: number, inApp = true): Frame {
  const path = `${module.replaceAll('.', '/')}.py`
  return {
    filename: path,
    abs_path: inApp ? `/srv/shop/${path}` : `/venv/lib/python3.12/site-packages/${path}`,
    module,
    function: fn,
    lineno,
    context_line: '    return handler(request)',
    in_app: inApp,
  }
}
const django = [
  pyFrame('django.core.handlers.exception', 'inner', 55, false),
  pyFrame('django.core.handlers.base', '_get_response', 197, false),
]
function pythonError(...values: ExceptionValue[]): NormalizedEvent {
  return event('python', { transaction: '/checkout/', exception: { values } })
}
function pyException(type: string, value: string, frames: Frame[]): ExceptionValue {
  return { type, value, mechanism: { type: 'django', handled: false }, stacktrace: { frames } }
}

/** sentry-rust 0.49: `filename` is a basename, `package` the crate, std frames from /rustc/. */
function rustFrame(fn: string, file: string, lineno: number, inApp?: boolean): Frame {
  const std = fn.startsWith('std::') || fn.startsWith('core::')
  const frame: Frame = {
    function: fn,
    filename: file,
    abs_path: std
      ? `/rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/${file}`
      : `/home/me/shop/src/${file}`,
    lineno,
    package: fn.split('::')[0] ?? '',
    instruction_addr: `0x55e4c0a${lineno.toString(16).padStart(5, '0')}`,
  }
  if (inApp !== undefined) frame.in_app = inApp
  return frame
}
function rustPanic(value: string, frames: Frame[]): NormalizedEvent {
  const mechanism = { type: 'panic', handled: false }
  return event('native', {
    level: 'fatal',
    exception: { values: [{ type: 'panic', value, mechanism, stacktrace: { frames } }] },
  })
}

/** A plain message event (JS `captureMessage` before v11, Rust `capture_message`). */
function messageEvent(formatted: string, platform = 'node'): NormalizedEvent {
  return event(platform, { level: 'info', logentry: { formatted } })
}

/** JS SDK v11 `captureMessage`: the message again as a typeless synthetic exception. */
function v11Message(message: string, frames: Frame[]): NormalizedEvent {
  const mechanism = { type: 'generic', handled: true, synthetic: true }
  return event('node', {
    level: 'info',
    logentry: { formatted: message },
    exception: { values: [{ value: message, stacktrace: { frames }, mechanism }] },
  })
}

describe('groupEvent', () => {
  it('returns a sha256 hash, the current version and the labels', () => {
    const e = pythonError(
      pyException('KeyError', "'sku'", [...django, pyFrame('shop.views', 'checkout', 42)]),
    )
    expect(groupEvent(e)).toEqual({
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      version: 'v2',
      title: "KeyError: 'sku'",
      // The Django event names its route as transaction: that is the culprit (Sentry's rule).
      culprit: '/checkout/',
      metadata: { type: 'KeyError', value: "'sku'" },
      // Its frames' source lines count since v2: v1's hash finds the issues stored before.
      previousHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    })
    expect(CURRENT_GROUPING_VERSION).toBe('v2')
  })
})

describe('source lines (v2, Sentry contextline_platforms)', () => {
  const at = (line: string, over: Partial<Frame> = {}): Frame => ({
    ...pyFrame('shop.views', 'checkout', 42),
    context_line: line,
    ...over,
  })
  const py = (frame: Frame) => pythonError(pyException('KeyError', "'x'", [...django, frame]))

  it('splits two errors thrown from different lines of one Python function', () => {
    const sku = groupEvent(py(at('    sku = order["sku"]')))
    const qty = groupEvent(py(at('    qty = order["qty"]', { lineno: 43 })))
    expect(sku.hash).not.toBe(qty.hash)
    // v1 grouped them together: both find the issue stored under it.
    expect(sku.previousHash).toBeDefined()
    expect(sku.previousHash).toBe(qty.previousHash)
    expect(groupingValuesV1(py(at('a = 1')))).toEqual(groupingValuesV1(py(at('b = 2'))))
  })

  it('collapses whitespace, and leaves out lines over 120 characters', () => {
    expect(hash(py(at('\tsku  =  order["sku"]  ')))).toBe(hash(py(at(' sku = order["sku"]'))))
    const long = (c: string) => at(`    x = "${c.repeat(130)}"`)
    expect(hash(py(long('a')))).toBe(hash(py(long('b'))))
    expect(groupEvent(py(long('a'))).previousHash).toBeUndefined()
  })

  it('reads a mapped JavaScript frame by its line instead of its function name', () => {
    const mapped = (fn: string, line: string): NormalizedEvent =>
      nodeError('Error', 'boom', [
        {
          filename: 'src/main.jsx',
          abs_path: 'http://localhost/src/main.jsx',
          function: fn,
          context_line: line,
          in_app: true,
          data: { sourcemap: 'http://localhost/assets/index.js.map' },
        },
      ])
    const a = mapped('onClick', '  onClick={() => { throw new Error("a") }}')
    const b = mapped('onClick', '  onClick={() => { throw new Error("b") }}')
    expect(hash(a)).not.toBe(hash(b))
    // The name the map gave (which the minifier or the scope lookup may change) does not count.
    expect(hash(mapped('handleClick', '  onClick={() => { throw new Error("a") }}'))).toBe(hash(a))
    // Without a function name a frame served from a URL keeps no line: it is not stable there.
    const anonymous = (line: string) =>
      nodeError('Error', 'boom', [
        { module: 'app', abs_path: 'https://cdn.example/app.js', context_line: line },
      ])
    expect(hash(anonymous('a()'))).toBe(hash(anonymous('b()')))
  })

  it('leaves the lines of other platforms out (Java, Go)', () => {
    const java = (line: string) =>
      event('java', {
        exception: {
          values: [
            {
              type: 'IllegalStateException',
              value: 'x',
              stacktrace: {
                frames: [
                  { module: 'com.acme.Orders', function: 'load', context_line: line, in_app: true },
                ],
              },
            },
          ],
        },
      })
    expect(hash(java('a();'))).toBe(hash(java('b();')))
    expect(groupEvent(java('a();')).previousHash).toBeUndefined()
  })
})

describe('exceptions', () => {
  const handler = [...nodeInternals, nodeFrame('Object.run', 12), nodeFrame('handler', 30)]

  it('groups the same Node error thrown from the same code together', () => {
    const first = nodeError(
      'TypeError',
      "Cannot read properties of undefined (reading 'length')",
      handler,
    )
    const again = nodeError(
      'TypeError',
      "Cannot read properties of undefined (reading 'length')",
      handler,
    )
    expect(hash(again)).toBe(hash(first))
  })

  it('ignores line numbers, so an edit above the function keeps the group', () => {
    const before = pythonError(
      pyException('KeyError', "'sku'", [...django, pyFrame('shop.views', 'checkout', 42)]),
    )
    const after = pythonError(
      pyException('KeyError', "'sku'", [...django, pyFrame('shop.views', 'checkout', 57)]),
    )
    expect(hash(after)).toBe(hash(before))
  })

  it('ignores the value when a stack trace contributes', () => {
    const a = nodeError('TypeError', "Cannot read properties of undefined (reading 'id')", handler)
    const b = nodeError('TypeError', "Cannot read properties of undefined (reading 'sku')", handler)
    expect(hash(b)).toBe(hash(a))
  })

  it('splits by exception type', () => {
    const frames = [...django, pyFrame('shop.views', 'checkout', 42)]
    const keyError = pythonError(pyException('KeyError', "'sku'", frames))
    const valueError = pythonError(pyException('ValueError', "'sku'", frames))
    expect(hash(valueError)).not.toBe(hash(keyError))
  })

  it('splits by the in-app function that raised', () => {
    const checkout = pythonError(
      pyException('KeyError', "'sku'", [...django, pyFrame('shop.views', 'checkout', 42)]),
    )
    const refund = pythonError(
      pyException('KeyError', "'sku'", [...django, pyFrame('shop.views', 'refund', 42)]),
    )
    expect(hash(refund)).not.toBe(hash(checkout))
  })

  it('ignores library frames when in-app frames exist (framework upgrades keep groups)', () => {
    const app = pyFrame('shop.views', 'checkout', 42)
    const old = pythonError(pyException('KeyError', "'sku'", [...django, app]))
    const upgraded = [
      pyFrame('django.core.handlers.exception', 'inner', 42, false),
      pyFrame('asgiref.sync', 'thread_handler', 9, false),
      app,
    ]
    expect(hash(pythonError(pyException('KeyError', "'sku'", upgraded)))).toBe(hash(old))
  })

  it('falls back to all frames when no frame is in-app', () => {
    const socket = (fn: string): Frame => ({
      filename: 'node:net',
      module: 'net',
      function: fn,
      in_app: false,
    })
    const reset = nodeError('Error', 'read ECONNRESET', [
      ...nodeInternals,
      socket('TCP.onStreamRead'),
    ])
    const refused = nodeError('Error', 'read ECONNRESET', [
      ...nodeInternals,
      socket('TCPConnectWrap.afterConnect'),
    ])
    expect(groupingValuesV1(reset)).toContain('frame:{"module":"net","function":"onStreamRead"}')
    expect(hash(refused)).not.toBe(hash(reset))
    expect(
      hash(nodeError('Error', 'read ECONNRESET', [...nodeInternals, socket('TCP.onStreamRead')])),
    ).toBe(hash(reset))
  })

  it('counts recursion once, whatever its depth', () => {
    const walk = (depth: number) => [
      nodeFrame('main', 3),
      ...Array.from({ length: depth }, () => nodeFrame('walk', 8)),
      nodeFrame('walk', 5),
    ]
    expect(hash(nodeError('RangeError', 'too deep', walk(3)))).toBe(
      hash(nodeError('RangeError', 'too deep', walk(40))),
    )
  })

  it('groups by the parameterised value when there is no stack trace', () => {
    const order = (value: string) => pythonError({ type: 'OrderError', value })
    expect(hash(order('Order 1231 failed for bob@x.io'))).toBe(
      hash(order('Order 7 failed for eve@y.org')),
    )
    expect(hash(order('Payment declined'))).not.toBe(hash(order('Order 7 failed for eve@y.org')))
  })

  it('lets every exception of a chain contribute', () => {
    const app = [pyFrame('shop.views', 'checkout', 42)]
    const chain = (causeType: string) =>
      pythonError(
        pyException(causeType, 'boom', app),
        pyException('CheckoutError', 'checkout failed', app),
      )
    expect(hash(chain('KeyError'))).toBe(hash(chain('KeyError')))
    expect(hash(chain('TimeoutError'))).not.toBe(hash(chain('KeyError')))
  })

  it('drops synthetic exception types (native signals)', () => {
    const frames: Frame[] = [
      { function: 'main', in_app: true },
      { function: 'parse_header', in_app: true },
    ]
    const signal = (type: string) =>
      event('native', {
        exception: {
          values: [
            { type, mechanism: { type: 'signalhandler', synthetic: true }, stacktrace: { frames } },
          ],
        },
      })
    expect(hash(signal('SIGBUS'))).toBe(hash(signal('SIGSEGV')))
  })

  it('groups Rust panics by their in-app frames', () => {
    const panic = (line: number, fn = 'shop::orders::total') => [
      rustFrame('std::rt::lang_start_internal', 'rt.rs', 148, false),
      rustFrame('shop::main', 'main.rs', 20, true),
      rustFrame(fn, 'orders.rs', line, true),
      rustFrame('core::option::unwrap_failed', 'option.rs', 2015, false),
    ]
    const message = 'called `Option::unwrap()` on a `None` value'
    expect(hash(rustPanic(message, panic(31)))).toBe(hash(rustPanic(message, panic(35))))
    expect(hash(rustPanic(message, panic(31, 'shop::orders::tax')))).not.toBe(
      hash(rustPanic(message, panic(31))),
    )
  })

  it('derives in_app when the SDK left it unset, like an explicit flag', () => {
    const frames = (inApp: (std: boolean) => boolean | undefined) => [
      rustFrame('std::rt::lang_start_internal', 'rt.rs', 148, inApp(true)),
      rustFrame('shop::main', 'main.rs', 20, inApp(false)),
      rustFrame('core::panicking::panic', 'panicking.rs', 145, inApp(true)),
    ]
    const flagged = rustPanic(
      'boom',
      frames((std) => !std),
    )
    const unflagged = rustPanic(
      'boom',
      frames(() => undefined),
    )
    expect(hash(unflagged)).toBe(hash(flagged))
    expect(groupingValuesV1(unflagged)).toEqual([
      'exception',
      'type:panic',
      'frame:{"filename":"main.rs","function":"shop::main"}',
    ])
  })
})

describe('messages', () => {
  it.each([
    ['numbers', 'Order 1231 failed after 3 retries', 'Order 88 failed after 12 retries'],
    [
      'UUIDs',
      'job 550e8400-e29b-41d4-a716-446655440000 lost',
      'job 6BA7B810-9DAD-11D1-80B4-00C04FD430C8 lost',
    ],
    ['IPs', 'connect to 10.0.0.7:5432 refused', 'connect to 172.16.254.1:5432 refused'],
    ['IPv6 addresses', 'peer 2001:db8::1 reset', 'peer fe80::a00:27ff:fe4e:66a1 reset'],
    ['emails', 'no account for bob@x.io', 'no account for alice.smith@example.co.uk'],
    ['hex ids', 'stale object 5f2b9c1e7a3d4e60', 'stale object 0a7e11c2d9f04b88'],
    ['timestamps', 'cron late at 2026-11-22T09:02:47.283Z', 'cron late at 2026-11-23T10:15:00Z'],
    ['durations', 'slow query took 1532ms', 'slow query took 980ms'],
  ])('groups messages differing only in %s', (_name, a, b) => {
    expect(hash(messageEvent(b))).toBe(hash(messageEvent(a)))
  })

  it('splits different messages', () => {
    expect(hash(messageEvent('Order 1231 failed'))).not.toBe(
      hash(messageEvent('Order 1231 shipped')),
    )
  })

  it('groups Python log records by their template', () => {
    const record = (user: string, formatted: string) =>
      event('python', {
        logger: 'shop.payments',
        logentry: { message: 'Payment for %s declined: %s', params: [user, 'card'], formatted },
      })
    const a = record('bob', 'Payment for bob declined: card')
    const b = record('alice', 'Payment for alice declined: card')
    expect(hash(b)).toBe(hash(a))
  })

  it('uses only the first two non-empty lines', () => {
    const a = messageEvent('Import failed\nrow 17 invalid\n{"sku": "A-1"}')
    const b = messageEvent('Import failed\nrow 902 invalid\n\n{"sku": "B-7", "qty": 3}')
    expect(hash(b)).toBe(hash(a))
  })
})

describe('captured messages with a synthetic exception (JS SDK v11)', () => {
  const here = [...nodeInternals, nodeFrame('checkout', 40)]
  const there = [...nodeInternals, nodeFrame('refund', 12, 'payments')]

  it('group by the message, wherever it was captured', () => {
    expect(hash(v11Message('Order 1231 failed', there))).toBe(
      hash(v11Message('Order 1231 failed', here)),
    )
  })

  it('group like the same message from an older SDK without the exception', () => {
    expect(hash(v11Message('Order 1231 failed', here))).toBe(
      hash(messageEvent('Order 1231 failed')),
    )
  })

  it('parameterise the message', () => {
    expect(hash(v11Message('Order 7 failed', there))).toBe(
      hash(v11Message('Order 1231 failed', here)),
    )
    expect(hash(v11Message('Order 7 shipped', here))).not.toBe(
      hash(v11Message('Order 7 failed', here)),
    )
  })

  it('are titled by the message, with no culprit (Sentry gives a synthetic exception none)', () => {
    expect(groupEvent(v11Message('Order 7 failed', here))).toMatchObject({
      title: 'Order 7 failed',
      culprit: '',
      metadata: { value: 'Order 7 failed' },
    })
  })
})

describe('stack traces without an exception', () => {
  it('group an event-level stack trace like an exception stack', () => {
    const at = (fn: string) =>
      event('node', {
        logentry: { formatted: 'cache miss' },
        stacktrace: { frames: [...nodeInternals, nodeFrame(fn, 3)] },
      })
    expect(hash(at('load'))).toBe(hash(at('load')))
    expect(hash(at('save'))).not.toBe(hash(at('load')))
    expect(groupingValuesV1(at('load'))[0]).toBe('stacktrace')
  })

  it('group by the current thread (Python attach_stacktrace)', () => {
    const thread = (fn: string) => ({
      values: [{ id: 1, current: true, stacktrace: { frames: [pyFrame('shop.tasks', fn, 10)] } }],
    })
    const a = event('python', { logentry: { formatted: 'queue full' }, threads: thread('enqueue') })
    const b = event('python', { logentry: { formatted: 'queue full' }, threads: thread('dequeue') })
    expect(groupingValuesV1(a)).toEqual([
      'threads',
      'frame:{"module":"shop.tasks","function":"enqueue"}',
    ])
    expect(hash(b)).not.toBe(hash(a))
  })
})

describe('fallback', () => {
  it('puts events with nothing to group by into one shared group', () => {
    const empty = event('node', {})
    const bare = event('native', {
      exception: { values: [{ type: 'SIGABRT', mechanism: { type: 'signal', synthetic: true } }] },
    })
    expect(groupingValuesV1(empty)).toEqual(['fallback'])
    expect(hash(bare)).toBe(hash(empty))
    expect(groupEvent(empty).title).toBe('<unlabeled event>')
  })
})

describe('fingerprints', () => {
  const checkout = [...django, pyFrame('shop.views', 'checkout', 42)]
  const refund = [...django, pyFrame('shop.views', 'refund', 9)]
  const withFingerprint = (e: NormalizedEvent, fingerprint: string[]) => ({ ...e, fingerprint })

  it('groups ["{{ default }}"] like no fingerprint', () => {
    const e = pythonError(pyException('KeyError', "'sku'", checkout))
    expect(hash(withFingerprint(e, ['{{ default }}']))).toBe(hash(e))
    expect(hash(withFingerprint(e, ['{{default}}']))).toBe(hash(e))
  })

  it('groups different errors together under one custom fingerprint', () => {
    const a = withFingerprint(pythonError(pyException('KeyError', "'sku'", checkout)), [
      'database-unavailable',
    ])
    const b = withFingerprint(pythonError(pyException('OperationalError', 'timeout', refund)), [
      'database-unavailable',
    ])
    expect(hash(b)).toBe(hash(a))
    expect(hash(a)).not.toBe(hash(pythonError(pyException('KeyError', "'sku'", checkout))))
  })

  it('resolves variables in custom fingerprints', () => {
    const fingerprint = ['{{ type }}', '{{ transaction }}']
    const a = withFingerprint(pythonError(pyException('KeyError', "'sku'", checkout)), fingerprint)
    const b = withFingerprint(pythonError(pyException('KeyError', "'id'", refund)), fingerprint)
    const c = withFingerprint(pythonError(pyException('TypeError', "'id'", refund)), fingerprint)
    expect(hash(b)).toBe(hash(a))
    expect(hash(c)).not.toBe(hash(a))
  })

  it('splits the default group by the extra entries of a hybrid fingerprint', () => {
    const tenant = (name: string) => ({
      ...pythonError(pyException('KeyError', "'sku'", checkout)),
      tags: [['tenant', name]] as [string, string][],
      fingerprint: ['{{ default }}', '{{ tags.tenant }}'],
    })
    expect(hash(tenant('acme'))).toBe(hash(tenant('acme')))
    expect(hash(tenant('globex'))).not.toBe(hash(tenant('acme')))
    expect(hash(tenant('acme'))).not.toBe(
      hash(pythonError(pyException('KeyError', "'sku'", checkout))),
    )
  })

  it('never collides with another strategy that yields the same text', () => {
    expect(hash(withFingerprint(event('node', {}), ['fallback']))).not.toBe(hash(event('node', {})))
  })
})
