import { describe, expect, it } from 'vitest'
import { normalizedEvent } from '../../test/support/normalized-event.ts'
import type { ExceptionValue, Frame, NormalizedEvent } from '../event/types.ts'
import { labelEvent } from './title.ts'

const event = normalizedEvent

function withException(...values: ExceptionValue[]): NormalizedEvent {
  return event({ exception: { values } })
}

const djangoFrame: Frame = {
  filename: 'django/core/handlers/base.py',
  module: 'django.core.handlers.base',
  function: '_get_response',
  in_app: false,
}
const viewFrame: Frame = {
  filename: 'shop/views.py',
  module: 'shop.views',
  function: 'checkout',
  in_app: true,
}
const helperFrame: Frame = { filename: 'shop/cart.py', function: 'total', in_app: true }

describe('title', () => {
  it('is "type: value" of the primary (last) exception', () => {
    const cause = { type: 'KeyError', value: "'sku'" }
    const primary = { type: 'ValueError', value: 'invalid cart' }
    expect(labelEvent(withException(cause, primary)).title).toBe('ValueError: invalid cart')
  })

  it('uses the first non-empty line of the value', () => {
    const value = '\nquery failed\nSELECT * FROM orders WHERE id = 5'
    expect(labelEvent(withException({ type: 'DatabaseError', value })).title).toBe(
      'DatabaseError: query failed',
    )
  })

  it('is just the type when the value is missing, and an Error when the type is', () => {
    expect(labelEvent(withException({ type: 'StopIteration' })).title).toBe('StopIteration')
    // Sentry's default type (sentry-go's zerolog hook sends a value alone).
    expect(labelEvent(withException({ value: 'Order 1231 failed' })).title).toBe(
      'Error: Order 1231 failed',
    )
    // A synthetic exception (an SDK's own, around a message) keeps its value alone.
    const synthetic = { value: 'Order 1231 failed', mechanism: { type: 'x', synthetic: true } }
    expect(labelEvent(withException(synthetic)).title).toBe('Order 1231 failed')
  })

  it("cuts the value's or message's line at 100 characters, as Sentry's titles, and the whole at 200", () => {
    const { title } = labelEvent(
      withException({ type: 'ValueError', value: `${'x'.repeat(150)} tail` }),
    )
    expect(title).toBe(`ValueError: ${'x'.repeat(97)}...`)
    expect(labelEvent(withException({ value: 'y'.repeat(100) })).title).toBe(
      `Error: ${'y'.repeat(100)}`,
    )
    expect(labelEvent(event({ logentry: { formatted: 'm'.repeat(101) } })).title).toBe(
      `${'m'.repeat(97)}...`,
    )
    const long = labelEvent(withException({ type: 'T'.repeat(300), value: 'v' })).title
    expect(long).toHaveLength(200)
    expect(long.endsWith('…')).toBe(true)
  })

  it('is the first line of the rendered message for message events', () => {
    const logentry = { message: 'user %s failed', formatted: 'user bob failed\ndetails' }
    expect(labelEvent(event({ logentry })).title).toBe('user bob failed')
  })

  it('is <unlabeled event> when there is nothing to show', () => {
    expect(labelEvent(event({})).title).toBe('<unlabeled event>')
    expect(labelEvent(withException({ mechanism: { type: 'generic' } })).title).toBe(
      '<unlabeled event>',
    )
  })
})

describe('culprit', () => {
  it('is "module in function" of the last in-app frame', () => {
    const stacktrace = { frames: [djangoFrame, viewFrame, djangoFrame] }
    expect(labelEvent(withException({ type: 'E', stacktrace })).culprit).toBe(
      'shop.views in checkout',
    )
  })

  it('reads a frame the SDK left unmarked as library code when it marked the app (sentry-java)', () => {
    const app: Frame = { module: 'shop.LibFail', function: 'parseQuota', in_app: true }
    const logback: Frame = { module: 'ch.qos.logback.core.util.FileSize', function: 'valueOf' }
    const stacktrace = { frames: [app, logback] }
    expect(labelEvent(withException({ type: 'E', stacktrace })).culprit).toBe(
      'shop.LibFail in parseQuota',
    )
    // With no frame marked, an unmarked frame is guessed as before (app code unless it looks
    // like a library).
    expect(
      labelEvent(withException({ type: 'E', stacktrace: { frames: [logback] } })).culprit,
    ).toBe('ch.qos.logback.core.util.FileSize in valueOf')
  })

  it("never names a Cargo crate, Rust's std or a system library, even when the SDK marked it", () => {
    // The stock Rust SDK marks its panic hook and anyhow's frames in_app.
    const app: Frame = {
      function: 's13app::compute_total',
      abs_path: '/srv/app/src/main.rs',
      in_app: true,
    }
    const hook: Frame = {
      function: 'sentry_panic::PanicIntegration::event_from_panic_info',
      abs_path: '/home/u/.cargo/registry/src/index.crates.io-1/sentry-panic-0.49.5/src/lib.rs',
      in_app: true,
    }
    const std: Frame = {
      function: 'std::panicking::begin_panic_handler',
      abs_path: '/rustc/1f2e3d/library/std/src/panicking.rs',
      in_app: true,
    }
    const stacktrace = { frames: [app, std, hook] }
    expect(labelEvent(withException({ type: 'panic', stacktrace })).culprit).toBe(
      's13app::compute_total',
    )
    const native = { ...withException({ type: 'panic', stacktrace }), platform: 'native' }
    expect(labelEvent(native).culprit).toBe('s13app::compute_total')
  })

  it('uses the request URL without its query when nothing else names the place', () => {
    const e = event({ request: { url: 'http://127.0.0.1:8080/message?password=[Filtered]#x' } })
    expect(labelEvent(e).culprit).toBe('http://127.0.0.1:8080/message')
  })

  it('uses the filename when the frame has no module', () => {
    const stacktrace = { frames: [viewFrame, helperFrame] }
    expect(labelEvent(withException({ type: 'E', stacktrace })).culprit).toBe(
      'shop/cart.py in total',
    )
  })

  it('uses the last frame when no frame is in-app', () => {
    const stacktrace = { frames: [djangoFrame, { ...djangoFrame, function: 'inner' }] }
    expect(labelEvent(withException({ type: 'E', stacktrace })).culprit).toBe(
      'django.core.handlers.base in inner',
    )
  })

  it('is just the function for native frames without a file', () => {
    const stacktrace = { frames: [{ function: 'myapp::main', in_app: true }] }
    expect(labelEvent(withException({ type: 'panic', stacktrace })).culprit).toBe('myapp::main')
  })

  it('uses the event stack trace when there is no exception', () => {
    expect(labelEvent(event({ stacktrace: { frames: [viewFrame] } })).culprit).toBe(
      'shop.views in checkout',
    )
  })

  it('is the transaction when the event has one, before any frame', () => {
    const stacktrace = { frames: [djangoFrame, viewFrame] }
    const routed = { ...withException({ type: 'E', stacktrace }), transaction: 'GET /orders/:id' }
    expect(labelEvent(routed).culprit).toBe('GET /orders/:id')
    expect(labelEvent(event({ transaction: '/orders/{order_id}' })).culprit).toBe(
      '/orders/{order_id}',
    )
  })

  it('is the culprit the client sent, before the transaction and any frame', () => {
    const stacktrace = { frames: [viewFrame] }
    const sent = { ...withException({ type: 'E', stacktrace }), transaction: 'GET /orders/:id' }
    expect(labelEvent({ ...sent, culprit: 'views.js in updateMember' }).culprit).toBe(
      'views.js in updateMember',
    )
    expect(labelEvent({ ...sent, culprit: ' ' }).culprit).toBe('GET /orders/:id')
  })

  it('reads the newest exception that has frames when the thrown one has none', () => {
    const cause = {
      type: 'NameError',
      stacktrace: { frames: [djangoFrame, { filename: 'app/views/show.html.erb', in_app: true }] },
    }
    const wrapper = { type: 'ActionView::Template::Error', value: 'undefined local variable' }
    expect(labelEvent(withException(cause, wrapper)).culprit).toBe('app/views/show.html.erb in ?')
  })

  it('writes JavaScript frames as function(file), also a JavaScript frame of another platform', () => {
    const frame: Frame = { filename: 'app:///index.js', function: 'onClick', in_app: true }
    const stacktrace = { frames: [frame] }
    expect(
      labelEvent({ ...withException({ type: 'E', stacktrace }), platform: 'node' }).culprit,
    ).toBe('onClick(index)')
    const other = { frames: [{ ...frame, function: '?', platform: 'javascript' }] }
    expect(
      labelEvent({ ...withException({ type: 'E', stacktrace: other }), platform: 'other' }).culprit,
    ).toBe('?(index)')
    // A file on disk (Node without a module of the SDK's) is written as it is.
    const disk = { frames: [{ ...frame, filename: '/srv/app/pay.js' }] }
    expect(
      labelEvent({ ...withException({ type: 'E', stacktrace: disk }), platform: 'node' }).culprit,
    ).toBe('onClick(/srv/app/pay.js)')
  })

  it('writes a served or bundled JavaScript file as its module, without query, extension or hash folders', () => {
    // Captured from a Vue 2.7 app (vue-loader 15, webpack 5): an error in a template expression
    // resolves into the compiled render function, a module webpack names `App.vue?<hash>` after
    // the template's id, which vue-loader derives from the file's content (another hash per edit).
    const render: Frame = {
      function: 'render',
      filename: 'src/App.vue?e6f3',
      abs_path: 'webpack://wpv2/./src/App.vue?e6f3',
      lineno: 21,
      context_line: '      ? _c("p", [_vm._v(_vm._s(_vm.order.total.toFixed(2)))])',
      in_app: true,
    }
    const library: Frame = {
      function: '_render',
      filename: 'node_modules/vue/dist/vue.runtime.esm.js',
      in_app: false,
    }
    const stacktrace = { frames: [library, render] }
    const js = { ...withException({ type: 'TypeError', stacktrace }), platform: 'javascript' }
    expect(labelEvent(js).culprit).toBe('render(src/App)')
    const url = 'https://shop.example/static/js/app.min.js?v=3#top'
    const busted = { frames: [{ ...render, filename: url, abs_path: url }] }
    const served = { ...withException({ type: 'E', stacktrace: busted }), platform: 'javascript' }
    expect(labelEvent(served).culprit).toBe('render(app)')
    // A file that is no URL is written without its query.
    const bare = { frames: [{ function: 'render', filename: 'src/App.vue?e6f3', in_app: true }] }
    const bareEvent = { ...withException({ type: 'E', stacktrace: bare }), platform: 'javascript' }
    expect(labelEvent(bareEvent).culprit).toBe('render(src/App.vue)')
    // Not other languages' files, and a file that is all query stays as sent.
    const python = { frames: [{ ...helperFrame, filename: 'shop/cart.py?x' }] }
    expect(labelEvent(withException({ type: 'E', stacktrace: python })).culprit).toBe(
      'shop/cart.py?x in total',
    )
    const odd = { frames: [{ function: 'render', filename: '?odd', in_app: true }] }
    const oddEvent = { ...withException({ type: 'E', stacktrace: odd }), platform: 'javascript' }
    expect(labelEvent(oddEvent).culprit).toBe('render(?odd)')
  })

  it('writes native frames as the function alone, even with a file', () => {
    const frame: Frame = { filename: 'main.m', function: '-[AppDelegate crash:]', in_app: true }
    const stacktrace = { frames: [frame] }
    expect(
      labelEvent({ ...withException({ type: 'E', stacktrace }), platform: 'cocoa' }).culprit,
    ).toBe('-[AppDelegate crash:]')
  })

  it('skips in-app frames that name no place for one that does', () => {
    const stacktrace = { frames: [viewFrame, { function: 'anonymous', in_app: true }] }
    expect(labelEvent(withException({ type: 'E', stacktrace })).culprit).toBe(
      'shop.views in checkout',
    )
  })

  it("is the request's URL when no frame says where", () => {
    const request = { url: 'https://example.com/welcome/', method: 'GET' }
    expect(
      labelEvent(event({ logentry: { formatted: 'Expect-CT failed' }, request })).culprit,
    ).toBe('https://example.com/welcome/')
  })

  it('is empty for a synthetic exception', () => {
    const stacktrace = { frames: [viewFrame] }
    const synthetic = { type: 'Error', mechanism: { type: 'generic', synthetic: true }, stacktrace }
    expect(labelEvent(withException(synthetic)).culprit).toBe('')
  })

  it('ignores a blank transaction and is the empty string with nothing to show', () => {
    const stacktrace = { frames: [viewFrame] }
    const blank = { ...withException({ type: 'E', stacktrace }), transaction: '  ' }
    expect(labelEvent(blank).culprit).toBe('shop.views in checkout')
    expect(labelEvent(event({})).culprit).toBe('')
  })
})

describe('metadata', () => {
  it('holds type and value of the primary exception', () => {
    expect(labelEvent(withException({ type: 'KeyError', value: "'sku'" })).metadata).toEqual({
      type: 'KeyError',
      value: "'sku'",
    })
  })

  it('gives an untyped exception the type Error, and is empty for message events', () => {
    expect(labelEvent(withException({ value: 'hello' })).metadata).toEqual({
      type: 'Error',
      value: 'hello',
    })
    expect(labelEvent(event({ logentry: { formatted: 'hello' } })).metadata).toEqual({})
  })
})
