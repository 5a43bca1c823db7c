import { describe, expect, it } from 'vitest'
import type { Frame, NormalizedEvent } from '../event/types.ts'
import { crashFrame, frameKey, primaryFrames, stackKeys, threadFrames } from './frames.ts'

function event(fields: Partial<NormalizedEvent>): NormalizedEvent {
  return {
    event_id: 'a'.repeat(32),
    timestamp: 1,
    platform: 'node',
    level: 'error',
    tags: [],
    ...fields,
  }
}

describe('frameKey', () => {
  it.each<[string, string, Frame, ReturnType<typeof frameKey>]>([
    [
      'node: module wins over filename, no line numbers',
      'node',
      { filename: '/srv/app/src/app.js', module: 'app', function: 'run', lineno: 3, colno: 9 },
      { module: 'app', function: 'run' },
    ],
    [
      'JS: only the method name counts',
      'node',
      { filename: '/srv/app/src/app.js', function: 'Object.handler' },
      { filename: 'app.js', function: 'handler' },
    ],
    [
      'JS: the `[as alias]` suffix is dropped',
      'node',
      { module: 'express.lib.router:layer', function: 'Layer.handle [as handle_request]' },
      { module: 'express.lib.router:layer', function: 'handle' },
    ],
    ['JS: `?` is no name', 'node', { module: 'app', function: '?' }, { module: 'app' }],
    [
      'JS: anonymous functions are no name',
      'javascript',
      { filename: 'app.js', function: 'Object.<anonymous>' },
      { filename: 'app.js' },
    ],
    [
      'JS: URL filenames are ignored (hosts and hashes change per deploy)',
      'javascript',
      { filename: 'https://shop.example.com/static/main.3f2a1c.js', function: 'checkout' },
      { function: 'checkout' },
    ],
    [
      'JS: eval frames are dropped',
      'javascript',
      { filename: 'app.js', function: 'eval' },
      undefined,
    ],
    ['JS: `<anonymous>` files are dropped', 'node', { filename: '<anonymous>' }, undefined],
    ['JS: native code is dropped', 'javascript', { abs_path: '[native code]' }, undefined],
    [
      'python: module and function',
      'python',
      { filename: 'shop/views.py', module: 'shop.views', function: 'checkout', lineno: 42 },
      { module: 'shop.views', function: 'checkout' },
    ],
    [
      'python: method names are kept whole',
      'python',
      { filename: 'shop/models.py', function: 'Order.total' },
      { filename: 'models.py', function: 'Order.total' },
    ],
    [
      'filename: basename, lowercased, either separator',
      'python',
      { abs_path: 'C:\\Users\\Me\\Shop\\Views.PY', function: 'checkout' },
      { filename: 'views.py', function: 'checkout' },
    ],
    [
      'java: lambda methods are no name',
      'java',
      { module: 'com.example.OrderService', function: 'lambda$place$0' },
      { module: 'com.example.OrderService' },
    ],
    [
      'java: generated lambda classes lose their counter',
      'java',
      { module: 'com.example.OrderService$$Lambda$123/0x0000000800c0b', function: 'accept' },
      { module: 'com.example.OrderService$$Lambda', function: 'accept' },
    ],
    [
      'rust: symbol hash is stripped',
      'native',
      { filename: 'orders.rs', function: 'myapp::orders::process::h0123456789abcdef' },
      { filename: 'orders.rs', function: 'myapp::orders::process' },
    ],
    ['native: unsymbolicated frames are dropped', 'native', { function: '<unknown>' }, undefined],
    [
      'the frame platform wins over the event platform',
      'python',
      { platform: 'javascript', filename: 'x.js', function: 'Foo.bar' },
      { filename: 'x.js', function: 'bar' },
    ],
  ])('%s', (_name, platform, frame, expected) => {
    expect(frameKey(frame, platform)).toEqual(expected)
  })
})

describe('stackKeys', () => {
  const lib: Frame = { module: 'express.lib.router:index', function: 'next', in_app: false }
  const app = (fn: string, lineno = 1): Frame => ({
    module: 'app',
    function: fn,
    lineno,
    in_app: true,
  })

  it('keeps only in-app frames in the app variant, every frame in the system variant', () => {
    const frames = [lib, app('handler'), lib]
    expect(stackKeys(frames, 'app', 'node')).toEqual([{ module: 'app', function: 'handler' }])
    expect(stackKeys(frames, 'system', 'node')).toHaveLength(3)
  })

  it('counts consecutive identical frames once, so recursion depth does not matter', () => {
    const shallow = [app('main'), app('walk', 7), app('walk', 9)]
    const deep = [app('main'), app('walk', 7), app('walk', 7), app('walk', 7), app('walk', 9)]
    expect(stackKeys(deep, 'app', 'node')).toEqual(stackKeys(shallow, 'app', 'node'))
  })

  it('also collapses recursion through library frames in the app variant', () => {
    const direct = [app('main'), app('walk', 7), app('walk', 9)]
    const viaLib = [app('main'), app('walk', 7), lib, app('walk', 7), lib, app('walk', 9)]
    expect(stackKeys(viaLib, 'app', 'node')).toEqual(stackKeys(direct, 'app', 'node'))
  })
})

describe('crashFrame', () => {
  it('is the last in-app frame, else the last frame', () => {
    const app: Frame = { function: 'handler', in_app: true }
    const lib: Frame = { function: 'parse', in_app: false }
    expect(crashFrame([app, lib])).toBe(app)
    expect(crashFrame([lib, { function: 'other', in_app: false }])?.function).toBe('other')
    expect(crashFrame([])).toBeUndefined()
  })
})

describe('threadFrames and primaryFrames', () => {
  const stack = (fn: string) => ({ frames: [{ function: fn }] })

  it('picks the crashed thread, else the current one, else the only one with a stack', () => {
    const crashed = { crashed: true, stacktrace: stack('crash') }
    const current = { current: true, stacktrace: stack('current') }
    const other = { stacktrace: stack('other') }
    expect(threadFrames(event({ threads: { values: [other, current, crashed] } }))).toEqual(
      crashed.stacktrace.frames,
    )
    expect(threadFrames(event({ threads: { values: [other, current] } }))?.[0]?.function).toBe(
      'current',
    )
    expect(threadFrames(event({ threads: { values: [{ id: 1 }, other] } }))?.[0]?.function).toBe(
      'other',
    )
    expect(threadFrames(event({ threads: { values: [other, other] } }))).toBeUndefined()
  })

  it('prefers the primary exception stack, then the event stack, then a thread', () => {
    const exception = { values: [{ type: 'Cause', stacktrace: stack('cause') }, { type: 'E' }] }
    const threads = { values: [{ current: true, stacktrace: stack('thread') }] }
    const primary = { values: [{ type: 'E', stacktrace: stack('primary') }] }
    expect(primaryFrames(event({ exception: primary, stacktrace: stack('event') }))).toEqual(
      stack('primary').frames,
    )
    // The cause's stack does not locate the event: only the primary (last) exception's does.
    expect(primaryFrames(event({ exception, threads, stacktrace: stack('event') }))).toEqual(
      stack('event').frames,
    )
    expect(primaryFrames(event({ exception, threads }))).toEqual(stack('thread').frames)
    expect(primaryFrames(event({}))).toEqual([])
  })
})
