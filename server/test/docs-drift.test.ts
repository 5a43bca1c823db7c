/**
 * Documentation that cannot drift from the code (the way Fastify's `test/internals/errors.test.js`
 * keeps `docs/Reference/Errors.md` in step with its error codes): every setting the config reads
 * is in the README's table, every error code and outcome reason is in `docs/errors.md`, every
 * registered `/api/0` route is in the generated OpenAPI document, and the other way round; every
 * file path the docs name in backticks exists, and the docs list the vitest projects there are.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { OUTCOME_DESCRIPTIONS, OUTCOME_KINDS } from '../src/api/outcomes.ts'
import { buildApp } from '../src/app.ts'
import { ERRORS } from '../src/errors.ts'
import { testConfig } from './support/test-config.ts'

const root = resolve(import.meta.dirname, '../..')
const read = (path: string) => readFileSync(resolve(root, path), 'utf8')

/** The rows of the Markdown tables under `heading` (up to the next heading), cells trimmed. */
function tableRows(markdown: string, heading: string): string[][] {
  const start = markdown.indexOf(`\n${heading}\n`)
  expect(start, `${heading} not found`).toBeGreaterThanOrEqual(0)
  const rest = markdown.slice(start + heading.length + 2)
  const end = rest.search(/\n#{1,3} /)
  const section = end < 0 ? rest : rest.slice(0, end)
  return section
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    )
}

/** The backticked names in the first column of the tables under `heading`. */
const firstColumn = (markdown: string, heading: string): string[] =>
  tableRows(markdown, heading).flatMap((row) =>
    [...(row[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''),
  )

describe('README configuration table', () => {
  it('lists every environment variable config.ts reads, and nothing it does not', () => {
    const source = read('server/src/config.ts')
    // `env['X']` and the protection block's `int('X', default)` helper.
    const read_ = new Set(
      [...source.matchAll(/(?:env\[|\bint\()['"]([A-Z0-9_]+)['"]/g)].map((m) => m[1]),
    )
    expect(read_.size).toBeGreaterThan(10)
    const table = new Set(firstColumn(read('README.md'), '## Configuration'))
    expect([...read_].filter((v) => !table.has(v ?? ''))).toEqual([])
    expect([...table].filter((v) => !read_.has(v))).toEqual([])
  })
})

describe('docs/errors.md', () => {
  const page = read('docs/errors.md')
  const codes = firstColumn(page, '## Error codes')

  it('lists every catalogue code with its status and reason, and no code that is gone', () => {
    const rows = tableRows(page, '## Error codes')
    for (const [code, e] of Object.entries(ERRORS)) {
      const reason = e.reason === null ? '—' : `\`${e.reason}\``
      expect(rows).toContainEqual([`\`${code}\``, String(e.status), reason])
    }
    expect(codes.filter((c) => !(c in ERRORS))).toEqual([])
  })

  it('describes every outcome and every reason the server records', () => {
    const rows = tableRows(page, '## Outcomes and their reasons')
    for (const kind of OUTCOME_KINDS) expect(rows.map((r) => r[0])).toContain(`\`${kind}\``)
    // Reasons of catalogue errors, plus the generic ones of ingest/rejections.ts and the
    // client-report item: each has a description, shown in the Outcomes view and here.
    // Check-in reasons are chosen by the check-in rules and the store that applies them, found
    // here by reading the source: any `outcome('rejected', '…')`, `reason: '…'` of a rejection,
    // or returned monitor reason counts.
    const monitors = ['server/src/store/queries/check-ins.ts', 'server/src/store/checkin-rules.ts']
      .map(read)
      .join('\n')
    const fromStore = [
      ...monitors.matchAll(/outcome\('rejected', '([a-z_]+)'\)/g),
      ...monitors.matchAll(/kind: 'rejected',? reason: '([a-z_]+)'/g),
      ...monitors.matchAll(/'(monitor_not_found|invalid_monitor_config)'/g),
    ].map((m) => m[1] ?? '')
    expect(fromStore.length).toBeGreaterThanOrEqual(4)
    const reasons = [
      ...Object.values(ERRORS).flatMap((e) => (e.reason === null ? [] : [e.reason])),
      'invalid_request',
      'internal_error',
      'invalid_client_report',
      ...fromStore,
    ]
    for (const reason of reasons) {
      const key = reason === 'quota_exceeded' ? `over_quota:${reason}` : `rejected:${reason}`
      expect(OUTCOME_DESCRIPTIONS, key).toHaveProperty([key])
    }
    for (const [key, text] of Object.entries(OUTCOME_DESCRIPTIONS)) {
      const [outcome, reason] = key.split(':')
      const cell = reason === undefined ? '—' : `\`${reason}\``
      expect(rows).toContainEqual([`\`${outcome}\``, cell, text])
    }
  })
})

describe('the OpenAPI document', () => {
  it('has every registered /api/0 route, and only those', async () => {
    const app = await buildApp(testConfig({ testClock: true }))
    try {
      const res = await app.inject({ url: '/api/0/openapi.json' })
      const doc = res.json<{ paths: Record<string, Record<string, unknown>> }>()
      const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      )
      const registered = app.routeTable
        .filter((r) => r.url.startsWith('/api/0/') && r.method !== 'HEAD')
        .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
      expect(registered.length).toBeGreaterThan(20)
      expect(registered.filter((r) => !documented.includes(r))).toEqual([])
      expect(documented.filter((d) => !registered.includes(d))).toEqual([])
    } finally {
      await app.close()
    }
  })

  it('gives every error answer the {detail} schema', async () => {
    const app = await buildApp(testConfig())
    try {
      const doc = (await app.inject({ url: '/api/0/openapi.json' })).json<{
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>
        components: { schemas: Record<string, { required?: string[] }> }
      }>()
      expect(doc.components.schemas['Error']?.required).toEqual(['detail'])
      const errors = Object.values(doc.paths)
        .flatMap((ops) => Object.values(ops))
        .flatMap((op) => Object.entries(op.responses).filter(([status]) => status >= '400'))
      expect(errors.length).toBeGreaterThan(50)
      for (const [, response] of errors) {
        expect(response).toMatchObject({
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        })
      }
    } finally {
      await app.close()
    }
  })
})

describe('the API reference page', () => {
  it('renders every operation of the document, with nothing that loads or runs', async () => {
    const app = await buildApp(testConfig())
    try {
      const doc = (await app.inject({ url: '/api/0/openapi.json' })).json<{
        paths: Record<string, Record<string, unknown>>
      }>()
      const res = await app.inject({ url: '/api/reference/' })
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toMatch(/^text\/html/)
      expect(res.headers['content-security-policy']).toMatch(/default-src 'none'/)
      expect(res.body).not.toMatch(/<script|<style|<link/)
      for (const [path, ops] of Object.entries(doc.paths))
        for (const method of Object.keys(ops))
          expect(res.body).toContain(`<code>${method.toUpperCase()} ${path}</code>`)
    } finally {
      await app.close()
    }
  })
})

/** README.md and every page under docs/. */
const docPages = (): string[] => [
  'README.md',
  ...readdirSync(resolve(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
]

// Where the docs' short paths are relative to: the repository, the workspaces, the store (its
// `sqlite/` and `postgres/` folders), the fixture envelopes, and the page's own folder.
const PATH_BASES = [
  '',
  'server/',
  'server/src/',
  'server/src/store/',
  'server/test/',
  'conformance/',
  'conformance/src/',
  'scripts/',
  'sdk-rust/',
  'fixtures/',
  'fixtures/envelopes/',
]

// Paths in other projects' repositories, cited as such.
const OTHER_PROJECTS = [
  'docs/Reference/Errors.md',
  'relay-server/src/utils/rate_limits.rs',
  'relay-server/src/extractors/request_meta.rs',
  'relay-server/src/envelope/mod.rs',
]

/** The backticked file paths of a page (a `/` inside, a file extension, outside code blocks). */
function namedPaths(page: string): string[] {
  const prose = read(page).replace(/```[\s\S]*?```/g, '')
  return [...prose.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1] ?? '')
    .filter((t) => /^[\w.@-][\w./@-]*\/[\w./@-]*\.\w{1,5}$/.test(t))
    .filter((t) => !/(^|\/)(\.cache|\.venv[\w-]*|dist|target|node_modules|artifacts)(\/|$)/.test(t))
}

describe('file paths named in the docs', () => {
  it('reads the paths it checks (a guard against an empty match)', () => {
    expect(namedPaths('README.md')).toContain('ingest/authenticated-body.ts')
  })

  it('exist, for every backticked path in README.md and docs/*.md', () => {
    const missing = docPages().flatMap((page) =>
      namedPaths(page)
        .filter((t) => !OTHER_PROJECTS.includes(t))
        .filter(
          (t) =>
            ![...PATH_BASES, `${dirname(page)}/`].some((b) => existsSync(resolve(root, b + t))),
        )
        .map((t) => `${page}: ${t}`),
    )
    expect(missing).toEqual([])
  })
})

describe('the vitest projects in the docs', () => {
  const projects = [...read('vitest.config.ts').matchAll(/\bname: '([\w-]+)'/g)].map((m) => m[1])

  it('reads the projects it checks', () => {
    expect(projects).toContain('unit')
  })

  it('are the projects of vitest.config.ts, in docs/testing.md and in the README', () => {
    const listed = [...read('docs/testing.md').matchAll(/^- `([\w-]+)`[ :]/gm)].map((m) => m[1])
    expect(listed).toEqual(projects)
    const readme = [...read('README.md').matchAll(/--project ([\w-]+)/g)].map((m) => m[1])
    expect(readme).toEqual(projects)
  })
})
