import { describe, expect, it } from 'vitest'
import { normalizedEvent } from '../../test/support/normalized-event.ts'
import { planFingerprint, resolveEntry, resolveVariable } from './fingerprint.ts'

const event = normalizedEvent

/** A Python error raised in `shop.views.checkout`, with a transaction, logger and tags. */
const pythonError = event({
  transaction: '/checkout/',
  logger: 'django.request',
  tags: [
    ['shard', 'eu-2'],
    ['customer.tier', 'gold'],
  ],
  exception: {
    values: [
      { type: 'ConnectionError', value: 'db unreachable' },
      {
        type: 'OperationalError',
        value: 'could not connect to server: Connection refused',
        stacktrace: {
          frames: [
            {
              abs_path: '/srv/app/shop/views.py',
              filename: 'shop/views.py',
              module: 'shop.views',
              function: 'checkout',
              package: 'shop',
              in_app: true,
            },
            {
              abs_path: '/venv/lib/python3.11/site-packages/psycopg2/__init__.py',
              filename: 'psycopg2/__init__.py',
              module: 'psycopg2',
              function: 'connect',
              in_app: false,
            },
          ],
        },
      },
    ],
  },
})

describe('planFingerprint', () => {
  it.each<[string, string[] | undefined]>([
    ['absent', undefined],
    ['empty', []],
    ['only {{ default }}', ['{{ default }}']],
    ['{{default}} without spaces', ['{{default}}']],
  ])('uses default grouping when the fingerprint is %s', (_name, fingerprint) => {
    const fields = fingerprint === undefined ? {} : { fingerprint }
    expect(planFingerprint(event(fields))).toEqual({ kind: 'default' })
  })

  it('is hybrid when {{ default }} comes with other entries', () => {
    const plan = planFingerprint({
      ...pythonError,
      fingerprint: ['{{ default }}', '{{ tags.shard }}'],
    })
    expect(plan).toEqual({ kind: 'hybrid', extras: ['eu-2'] })
  })

  it('is custom without {{ default }}', () => {
    const plan = planFingerprint({ ...pythonError, fingerprint: ['database-down', '{{ type }}'] })
    expect(plan).toEqual({ kind: 'custom', values: ['database-down', 'OperationalError'] })
  })
})

describe('resolveVariable', () => {
  it.each([
    ['type', 'OperationalError'],
    ['error.type', 'OperationalError'],
    ['value', 'could not connect to server: Connection refused'],
    ['error.value', 'could not connect to server: Connection refused'],
    ['message', 'could not connect to server: Connection refused'],
    ['function', 'checkout'],
    ['stack.function', 'checkout'],
    ['module', 'shop.views'],
    ['stack.module', 'shop.views'],
    ['path', '/srv/app/shop/views.py'],
    ['stack.abs_path', '/srv/app/shop/views.py'],
    ['stack.filename', 'shop/views.py'],
    ['package', 'shop'],
    ['level', 'error'],
    ['logger', 'django.request'],
    ['transaction', '/checkout/'],
    ['tags.shard', 'eu-2'],
    ['tags.customer.tier', 'gold'],
    ['Type', 'OperationalError'],
    ['tags.missing', '<no-value-for-tag-missing>'],
    ['colour', '<unrecognized-variable-colour>'],
  ])('{{ %s }} → %s', (name, expected) => {
    expect(resolveVariable(name, pythonError)).toBe(expected)
  })

  it.each([
    ['type', '<no-type>'],
    ['value', '<no-value>'],
    ['message', '<no-message>'],
    ['function', '<no-function>'],
    ['module', '<no-module>'],
    ['path', '<no-abs-path>'],
    ['stack.filename', '<no-filename>'],
    ['package', '<no-package>'],
    ['logger', '<no-logger>'],
    ['transaction', '<no-transaction>'],
  ])('{{ %s }} on an empty event → %s', (name, expected) => {
    expect(resolveVariable(name, event({}))).toBe(expected)
  })

  it('resolves {{ message }} to the rendered message of a message event', () => {
    const logentry = { message: 'job %s failed', formatted: 'job 7 failed' }
    expect(resolveVariable('message', event({ logentry }))).toBe('job 7 failed')
  })
})

describe('resolveEntry', () => {
  it('replaces variables anywhere in an entry, spaces inside braces optional', () => {
    expect(resolveEntry('db-{{tags.shard}}/{{ level }}', pythonError)).toBe('db-eu-2/error')
  })

  it('keeps literal entries as they are', () => {
    expect(resolveEntry('checkout 42', pythonError)).toBe('checkout 42')
  })

  it('parameterises a literal entry equal to the message, like the message itself', () => {
    const message = event({ logentry: { formatted: 'job 7 failed' } })
    expect(resolveEntry('job 7 failed', message)).toBe('job <int> failed')
  })
})
