import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkFixtures, findSecrets } from './fixture-check.ts'
import { FIXTURE_PUBLIC_KEY, loadFixtureCases, retarget } from './fixtures.ts'

describe('fixtures/', () => {
  it('passes scripts/check-fixtures.ts', async () => {
    expect(await checkFixtures()).toEqual([])
  })

  it('loads every case', async () => {
    const cases = await loadFixtureCases()
    expect(cases.length).toBeGreaterThan(0)
  })
})

describe('findSecrets', () => {
  it('accepts the placeholder key and flags others', () => {
    expect(findSecrets(`"dsn":"http://${FIXTURE_PUBLIC_KEY}@127.0.0.1:9/1"`)).toEqual([])
    expect(findSecrets('sentry_key=0123456789abcdef0123456789abcdef')).toHaveLength(1)
    expect(findSecrets('https://k:secret@o1.ingest.sentry.io/5')).toHaveLength(2)
  })
})

describe('retarget', () => {
  const dsn = 'http://k@127.0.0.1:1/7'

  it('replaces a captured dsn and keeps the rest byte for byte', () => {
    const out = retarget(
      Buffer.from('{"dsn":"http://x@h/1","event_id":"a"}\n{"type":"x"}\n'),
      dsn,
      'header',
    )
    expect(out.toString()).toBe(`{"dsn":"${dsn}","event_id":"a"}\n{"type":"x"}\n`)
  })

  it('leaves envelopes without dsn and invalid headers alone', () => {
    for (const raw of ['{}\n{"type":"x"}', '{"a":1', 'not json\n']) {
      expect(retarget(Buffer.from(raw), dsn, 'header').toString()).toBe(raw)
    }
  })

  it('adds the dsn for envelope-header auth', () => {
    expect(retarget(Buffer.from('{}'), dsn, 'envelope').toString()).toBe(`{"dsn":"${dsn}"}`)
  })
})

describe('checkFixtures on a broken tree', () => {
  it('reports pairing, naming, schema, secret and consistency problems', async () => {
    const root = await mkdtemp(join(tmpdir(), 'fixtures-check-'))
    try {
      const area = join(root, 'envelopes', 'invalid')
      await mkdir(area, { recursive: true })
      const id = '0123456789abcdef0123456789abcdef'
      await writeFile(join(area, 'orphan-envelope.envelope'), '{}')
      await writeFile(join(area, 'BadName.envelope'), '{}')
      await writeFile(join(area, 'BadName.expected.json'), '{"description":"x"}')
      await writeFile(join(area, 'lonely-expected.expected.json'), '{}')
      await writeFile(
        join(area, 'leaky-case.envelope'),
        `{"dsn":"https://${id}@o1.ingest.sentry.io/5"}`,
      )
      await writeFile(
        join(area, 'leaky-case.expected.json'),
        JSON.stringify({
          description: 'x',
          response: { status: 200 },
          events: [{ event_id: id, issue: 'A' }],
          issues: { B: {} },
        }),
      )
      const problems = (await checkFixtures(root)).join('\n')
      expect(problems).toContain('stale')
      expect(problems).toContain('orphan-envelope.envelope: missing orphan-envelope.expected.json')
      expect(problems).toContain('BadName.envelope: case name must be kebab-case')
      expect(problems).toContain('BadName.envelope: schema')
      expect(problems).toContain('lonely-expected.expected.json: no matching .envelope')
      expect(problems).toContain(`looks like a real secret: DSN key ${id}`)
      expect(problems).toContain(`event ${id} does not occur in the envelope bytes`)
      expect(problems).toContain('issue label B is used by no event')
      expect(problems).toContain('invalid/ cases expect a 4xx status')
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  })
})
