import { describe, expect, it } from 'vitest'
import type { Frame } from '../event/types.ts'
import { isInApp, looksInApp } from './in-app.ts'

describe('looksInApp', () => {
  it.each<[string, Frame, boolean]>([
    ['node app file', { filename: '/srv/app/src/app.js', function: 'run' }, true],
    ['node dependency', { filename: '/srv/app/node_modules/express/lib/router/index.js' }, false],
    ['windows dependency', { abs_path: 'C:\\app\\node_modules\\pg\\lib\\client.js' }, false],
    ['node internals', { filename: 'node:internal/process/task_queues' }, false],
    ['python app', { abs_path: '/srv/app/shop/views.py', module: 'shop.views' }, true],
    ['python site-packages', { abs_path: '/venv/lib/python3.11/site-packages/django/x.py' }, false],
    [
      'python dist-packages',
      { abs_path: '/usr/local/lib/python3/dist-packages/flask/app.py' },
      false,
    ],
    ['python stdlib', { abs_path: '/usr/local/lib/python3.11/threading.py' }, false],
    ['system library', { abs_path: '/usr/lib/python3.11/json/decoder.py' }, false],
    ['php / go vendor', { abs_path: '/var/www/vendor/laravel/framework/src/x.php' }, false],
    ['go modules', { abs_path: '/root/go/pkg/mod/github.com/gin-gonic/gin@v1.9.1/gin.go' }, false],
    ['rust std by path', { abs_path: '/rustc/90b35a62/library/std/src/rt.rs' }, false],
    ['rust crate', { abs_path: '/home/me/.cargo/registry/src/x/tokio-1.35.0/src/lib.rs' }, false],
    ['rust std by name', { function: 'std::panicking::begin_panic_handler' }, false],
    [
      'rust core trait impl',
      { function: '<core::pin::Pin<P> as core::future::Future>::poll' },
      false,
    ],
    [
      'rust app',
      { function: 'myapp::orders::process', abs_path: '/home/me/myapp/src/orders.rs' },
      true,
    ],
    ['java runtime', { module: 'java.lang.Thread', function: 'run' }, false],
    ['jdk internals', { module: 'jdk.internal.reflect.NativeMethodAccessorImpl' }, false],
    ['sun internals', { module: 'sun.reflect.GeneratedMethodAccessor12' }, false],
    ['sentry java sdk', { module: 'io.sentry.SentryClient', function: 'captureEvent' }, false],
    ['java app', { module: 'com.example.orders.OrderService', function: 'place' }, true],
    ['unpkg script', { filename: 'https://unpkg.com/react@18/umd/react.production.min.js' }, false],
    ['own script URL', { filename: 'https://shop.example.com/static/app.js' }, true],
    ['no location at all', { instruction_addr: '0x1000' }, true],
  ])('%s', (_name, frame, expected) => {
    expect(looksInApp(frame)).toBe(expected)
  })
})

describe('isInApp', () => {
  it('trusts the SDK flag over the guess', () => {
    expect(isInApp({ filename: '/srv/app/node_modules/lib.js', in_app: true })).toBe(true)
    expect(isInApp({ filename: '/srv/app/src/app.js', in_app: false })).toBe(false)
  })

  it('guesses when the flag is unset', () => {
    expect(isInApp({ filename: '/srv/app/node_modules/lib.js' })).toBe(false)
    expect(isInApp({ filename: '/srv/app/src/app.js' })).toBe(true)
  })
})
