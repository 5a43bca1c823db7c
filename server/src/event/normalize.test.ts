import { describe, expect, it } from 'vitest'
import { normalizeEvent, normalizeEventId, normalizeLevel } from './normalize.ts'

describe('normalizeEventId', () => {
  it('keeps the canonical form and canonicalises a dashed, upper-case UUID', () => {
    expect(normalizeEventId('0123456789abcdef0123456789abcdef')).toBe(
      '0123456789abcdef0123456789abcdef',
    )
    expect(normalizeEventId('01234567-89AB-CDEF-0123-456789ABCDEF')).toBe(
      '0123456789abcdef0123456789abcdef',
    )
  })

  it('refuses anything that is not 32 hex digits', () => {
    for (const v of ['0123456789abcdef0123456789abcdeg', 'abc', '', 42, null, undefined]) {
      expect(normalizeEventId(v)).toBeUndefined()
    }
  })
})

describe('normalizeLevel', () => {
  it('maps level names and Python numbers to the five levels', () => {
    expect(
      ['FATAL', 'critical', 'Warn', 'log', 'trace', 50, 45, 30, 20, 0].map(normalizeLevel),
    ).toEqual([
      'fatal',
      'fatal',
      'warning',
      'info',
      'debug',
      'fatal',
      'error',
      'warning',
      'info',
      'debug',
    ])
  })

  it('never answers with a member of Object.prototype', () => {
    for (const v of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'nonsense', null]) {
      expect(normalizeLevel(v)).toBe('error')
    }
  })
})

describe('stack trace registers', () => {
  const registersOf = (registers: unknown) =>
    normalizeEvent(
      { stacktrace: { frames: [{ function: 'main' }], registers } },
      { received: 1_700_000_000 },
    ).stacktrace?.registers

  it('keeps names to addresses as native SDKs send them, a number read as hex', () => {
    expect(registersOf({ pc: '0x00000001000b0bfc', sp: '0x16fd79810', lr: 4096 })).toEqual({
      pc: '0x00000001000b0bfc',
      sp: '0x16fd79810',
      lr: '0x1000',
    })
  })

  it('drops what is not an address, and bounds the count and lengths', () => {
    const many = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`r${i}`, '0x1']))
    expect(Object.keys(registersOf(many) ?? {})).toHaveLength(128)
    expect(registersOf({ a: null, b: { x: 1 }, c: -1, [`${'n'.repeat(65)}`]: '0x1' })).toBe(
      undefined,
    )
    expect(registersOf({ pc: 'x'.repeat(100) })).toBeUndefined()
    // Only addresses: text that is not one is client data no scrubbing rule reads here.
    expect(
      registersOf({
        pc: '0x1F',
        sp: '4096',
        r1: 'password=hunter2',
        'r 2': '0x1',
        r3: `0x${'f'.repeat(33)}`,
      }),
    ).toEqual({ pc: '0x1F', sp: '4096' })
    expect(registersOf('nope')).toBeUndefined()
    const proto = registersOf(JSON.parse('{"__proto__": "0x1"}'))
    expect(Object.getPrototypeOf(proto)).toBe(Object.prototype)
    expect(Object.getOwnPropertyDescriptor(proto, '__proto__')?.value).toBe('0x1')
  })
})

describe('exception mechanism', () => {
  const mechanismOf = (mechanism: unknown, extra: Record<string, unknown> = {}) =>
    normalizeEvent(
      { exception: { values: [{ type: 'E', value: 'v', mechanism, ...extra }] } },
      { received: 1_700_000_000 },
    ).exception?.values[0]

  it('keeps what SDKs send: exception groups, data, help link and the OS cause of a crash', () => {
    const sent = {
      type: 'chained',
      handled: true,
      source: 'exceptions[0]',
      is_exception_group: true,
      exception_id: 1,
      parent_id: 0,
      help_link: 'https://docs.example.com/errors/42',
      data: { relevant_address: '0x0', nested: { a: 1 } },
      meta: {
        signal: { number: 11, code: 1, name: 'SIGSEGV', code_name: 'SEGV_MAPERR' },
        errno: { number: 2, name: 'ENOENT' },
        mach_exception: { exception: 1, code: 1, subcode: 8, name: 'EXC_BAD_ACCESS' },
        ns_error: { code: -1, domain: 'NSURLErrorDomain' },
      },
    }
    const e = mechanismOf(sent, { thread_id: 7 })
    expect(e?.mechanism).toEqual(sent)
    expect(e?.thread_id).toBe(7)
    expect(mechanismOf({}, { thread_id: 'main' })?.thread_id).toBe('main')
  })

  it('drops fields of the wrong shape and unknown ones', () => {
    const e = mechanismOf(
      {
        type: 'x',
        exception_id: -1,
        parent_id: 1.5,
        is_exception_group: 'yes',
        data: 'text',
        meta: {
          signal: { number: 'eleven', name: { x: 1 } },
          errno: [],
          other: { a: 1 },
          ns_error: {},
        },
        unknown: 1,
      },
      { thread_id: { id: 1 } },
    )
    expect(e?.mechanism).toEqual({ type: 'x' })
    expect(e?.thread_id).toBeUndefined()
  })
})

describe('native frame fields', () => {
  const frameOf = (f: Record<string, unknown>) =>
    normalizeEvent({ stacktrace: { frames: [f] } }, { received: 1_700_000_000 }).stacktrace
      ?.frames[0]

  it('keeps symbols, image and symbol addresses, trust and the address mode; numbers as hex', () => {
    expect(
      frameOf({
        function: 'main',
        instruction_addr: 4096,
        symbol: '_ZN4main17h1234E',
        symbol_addr: '0xff0',
        image_addr: 0,
        addr_mode: 'rel:0',
        trust: 'cfi',
        stack_start: true,
      }),
    ).toEqual({
      function: 'main',
      instruction_addr: '0x1000',
      symbol: '_ZN4main17h1234E',
      symbol_addr: '0xff0',
      image_addr: '0x0',
      addr_mode: 'rel:0',
      trust: 'cfi',
      stack_start: true,
    })
  })

  it('drops addresses that are no whole number and bounds their text', () => {
    expect(
      frameOf({ function: 'f', instruction_addr: -1, symbol_addr: 1.5, image_addr: { a: 1 } }),
    ).toEqual({ function: 'f' })
    expect(frameOf({ function: 'f', instruction_addr: 'x'.repeat(100) })?.instruction_addr).toBe(
      'x'.repeat(64),
    )
  })
})

describe('threads', () => {
  it("keep the main thread's mark and a JVM thread's state", () => {
    const threads = normalizeEvent(
      {
        threads: {
          values: [
            { id: 1, name: 'main', main: true, state: 'RUNNABLE', crashed: true },
            { id: 2, main: 'yes', state: { s: 1 } },
          ],
        },
      },
      { received: 1_700_000_000 },
    ).threads?.values
    expect(threads).toEqual([
      { id: 1, name: 'main', crashed: true, main: true, state: 'RUNNABLE' },
      { id: 2 },
    ])
  })
})

describe('tags', () => {
  it("read as Relay's TagEntry: key blanks as '-', booleans as Python writes them", () => {
    const e = normalizeEvent(
      { tags: { ' feature flag ': true, beta: false, count: 3, plain: 'true' } },
      { received: 1 },
    )
    expect(e.tags).toEqual([
      ['feature-flag', 'True'],
      ['beta', 'False'],
      ['count', '3'],
      ['plain', 'true'],
    ])
    const pairs = normalizeEvent({ tags: [['a b', true]] }, { received: 1 })
    expect(pairs.tags).toEqual([['a-b', 'True']])
  })
})
