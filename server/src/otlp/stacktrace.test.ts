import { describe, expect, it } from 'vitest'
import { parseStacktrace } from './stacktrace.ts'

describe('parseStacktrace', () => {
  it('reads V8 traces caller first, with the header as type and value', () => {
    const parsed = parseStacktrace(
      [
        'TypeError: card for order 4711 was declined',
        '    at chargeCard (file:///srv/app/pay.mjs:12:9)',
        '    at async Checkout.run [as handle] (/srv/app/checkout.js:40:5)',
        '    at /srv/app/main.js:3:1',
        '    at Module._compile (node:internal/modules/cjs/loader:1554:14)',
        '    at Promise.all (index 0)',
      ].join('\n'),
    )
    expect(parsed).toEqual({
      platform: 'node',
      type: 'TypeError',
      value: 'card for order 4711 was declined',
      frames: [
        {
          filename: 'node:internal/modules/cjs/loader',
          abs_path: 'node:internal/modules/cjs/loader',
          function: 'Module._compile',
          lineno: 1554,
          colno: 14,
        },
        { filename: '/srv/app/main.js', abs_path: '/srv/app/main.js', lineno: 3, colno: 1 },
        {
          filename: '/srv/app/checkout.js',
          abs_path: '/srv/app/checkout.js',
          function: 'Checkout.run [as handle]',
          lineno: 40,
          colno: 5,
        },
        {
          filename: '/srv/app/pay.mjs',
          abs_path: '/srv/app/pay.mjs',
          function: 'chargeCard',
          lineno: 12,
          colno: 9,
        },
      ],
    })
  })

  it('keeps a Node error code out of the type and marks browser traces as javascript', () => {
    const parsed = parseStacktrace(
      'TypeError [ERR_INVALID_ARG_TYPE]: bad path\n    at f (https://shop.example/app.js:1:200)',
    )
    expect(parsed).toMatchObject({ platform: 'javascript', type: 'TypeError', value: 'bad path' })
  })

  it('reads Firefox/Safari traces', () => {
    const parsed = parseStacktrace(
      'render@https://a.example/app.js:10:3\n@https://a.example/app.js:1:1',
    )
    expect(parsed?.platform).toBe('javascript')
    expect(parsed?.frames.map((f) => f.function)).toEqual([undefined, 'render'])
  })

  it('reads the last CPython traceback of a chain, with context lines and the final header', () => {
    const parsed = parseStacktrace(
      [
        'Traceback (most recent call last):',
        '  File "/app/db.py", line 3, in connect',
        '    raise OSError("down")',
        'OSError: down',
        '',
        'During handling of the above exception, another exception occurred:',
        '',
        'Traceback (most recent call last):',
        '  File "/app/main.py", line 10, in <module>',
        '    run()',
        '  File "/app/main.py", line 7, in run',
        '    total = 1 / count',
        '            ~~^~~~~~~',
        'ZeroDivisionError: division by zero',
      ].join('\n'),
    )
    expect(parsed).toEqual({
      platform: 'python',
      type: 'ZeroDivisionError',
      value: 'division by zero',
      frames: [
        {
          filename: '/app/main.py',
          abs_path: '/app/main.py',
          lineno: 10,
          function: '<module>',
          context_line: 'run()',
        },
        {
          filename: '/app/main.py',
          abs_path: '/app/main.py',
          lineno: 7,
          function: 'run',
          context_line: 'total = 1 / count',
        },
      ],
    })
  })

  it('reads the thrown exception of a JVM trace, up to the first cause', () => {
    const parsed = parseStacktrace(
      [
        'Exception in thread "main" java.lang.IllegalStateException: order 17 is closed',
        '\tat com.shop.Orders.close(Orders.java:42)',
        '\tat java.base/java.lang.Thread.run(Thread.java:833)',
        '\tat com.shop.Main.main(Unknown Source)',
        'Caused by: java.io.IOException: disk',
        '\tat com.shop.Disk.write(Disk.java:7)',
      ].join('\n'),
    )
    expect(parsed).toEqual({
      platform: 'java',
      type: 'java.lang.IllegalStateException',
      value: 'order 17 is closed',
      frames: [
        { module: 'com.shop.Main', function: 'main', filename: 'Unknown Source' },
        { module: 'java.lang.Thread', function: 'run', filename: 'Thread.java', lineno: 833 },
        { module: 'com.shop.Orders', function: 'close', filename: 'Orders.java', lineno: 42 },
      ],
    })
  })

  it('returns undefined for text without frames', () => {
    expect(parseStacktrace('goroutine 1 [running]:\nmain.main()\n\t/app/main.go:5 +0x1d')).toBe(
      undefined,
    )
    expect(parseStacktrace('just a message')).toBe(undefined)
    expect(parseStacktrace('')).toBe(undefined)
  })
})
