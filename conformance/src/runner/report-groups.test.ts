import { describe, expect, it } from 'vitest'
import { loadDriver } from '../harness/drivers.ts'
import { envelopeItems } from '../harness/recording-proxy.ts'
import { loadMatrix, MATRIX_PATH } from './matrix.ts'
import { groupOf, renderHtml, renderMarkdown, rowGroups } from './render.ts'
import { type CellResult, REPORT_SCHEMA_VERSION, type Report, summarize } from './report.ts'
import { SCENARIOS } from './scenarios/index.ts'
import { headerOf, sessionTotals } from './scenarios/requests.ts'

function report(rows: Report['rows'], cells: CellResult[]): Report {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: '2026-01-01T00:00:00Z',
    target: { url: 'http://x', startedByRunner: false },
    capabilities: {},
    scenarios: [{ id: 's', title: 'S' }],
    rows,
    cells,
    fixtures: [],
    summary: summarize(cells),
  }
}

describe('the report groups rows by SDK and framework', () => {
  const rows: Report['rows'] = [
    { id: 'node-11', label: '@sentry/node 11', family: '@sentry/node' },
    { id: 'express-11', label: 'Express 11', family: '@sentry/node', framework: 'Express' },
    { id: 'node-10', label: '@sentry/node 10', family: '@sentry/node' },
    { id: 'flask', label: 'Flask', family: 'sentry-sdk', framework: 'Flask' },
    { id: 'old', label: 'a row of an old report' },
  ]
  const cells: CellResult[] = [
    { row: 'node-11', scenario: 's', status: 'pass' },
    { row: 'express-11', scenario: 's', status: 'pass', reason: 'lacks the route' },
    { row: 'node-10', scenario: 's', status: 'fail', reason: 'boom' },
    { row: 'flask', scenario: 's', status: 'pass' },
    { row: 'old', scenario: 's', status: 'pass' },
  ]

  it('in order of each group first row, scripts apart from each framework', () => {
    expect(groupOf(rows[1] as Report['rows'][number])).toBe('@sentry/node · Express')
    expect(rowGroups(report(rows, cells)).map(([g, r]) => [g, r.map((x) => x.id)])).toEqual([
      ['@sentry/node', ['node-11', 'node-10']],
      ['@sentry/node · Express', ['express-11']],
      ['sentry-sdk · Flask', ['flask']],
      ['a row of an old report', ['old']],
    ])
  })

  it('as heading rows of the Markdown and HTML grids, with notes of passing cells', () => {
    const md = renderMarkdown(report(rows, cells))
    const lines = md.split('\n')
    const heading = lines.indexOf('| **@sentry/node · Express** |  |')
    expect(heading).toBeGreaterThan(0)
    expect(lines[heading + 1]).toBe('| Express 11 | ✅ |')
    expect(md).toContain('- **express-11 × s**: lacks the route')
    expect(md).toContain('- **node-10 × s**: ❌ fail — boom')
    const html = renderHtml(report(rows, cells))
    expect(html).toContain('<tr class="group"><th colspan="2">sentry-sdk · Flask</th></tr>')
  })
})

describe('the matrix declares its framework rows', () => {
  it('each with a family, and a driver describing its app', () => {
    const matrix = loadMatrix(MATRIX_PATH, new Set(SCENARIOS.keys()))
    const framed = matrix.rows.filter((r) => r.framework !== undefined)
    expect(framed.map((r) => r.id)).toEqual(
      expect.arrayContaining([
        'express-11',
        'express-8',
        'fastify-11',
        'koa-11',
        'hono-11',
        'flask',
        'fastapi',
        'django',
        'go-gin',
        'go-echo',
        'spring-boot',
      ]),
    )
    for (const row of framed) {
      expect(loadDriver(row.driver).app?.framework, row.id).toBe(row.framework)
      expect(row.cells['request-errors'], row.id).toBe('expected')
    }
    const browsers = matrix.rows.filter((r) => r.family === '@sentry/browser').map((r) => r.id)
    expect(browsers).toEqual(['browser-11', 'browser-10'])
  })
})

describe('what the SDK sent, as the scenarios read it', () => {
  it('finds a header in object and pair shapes, ignoring case', () => {
    expect(headerOf({ headers: { 'X-Request-Id': 'a' } }, 'x-request-id')).toBe('a')
    expect(headerOf({ headers: [['x-request-id', 'b']] }, 'X-Request-Id')).toBe('b')
    expect(headerOf({ headers: 'x' }, 'x-request-id')).toBeUndefined()
    expect(headerOf(undefined, 'x-request-id')).toBeUndefined()
  })

  it('adds up aggregates and the latest update of each individual session, in any arrival order', () => {
    const totals = sessionTotals([
      {
        type: 'sessions',
        payload: { aggregates: [{ started: 't', exited: 3, crashed: 1 }, { errored: 2 }] },
      },
      { type: 'session', payload: { sid: 'a', did: 'u1', status: 'ok', errors: 0 } },
      { type: 'session', payload: { sid: 'a', did: 'u1', status: 'crashed', errors: 1 } },
      { type: 'session', payload: { sid: 'b', did: 'u2', status: 'exited', errors: 2 } },
      { type: 'session', payload: { sid: 'c', status: 'unhandled' } },
      { type: 'session', payload: { sid: 'd', status: 'abnormal' } },
      { type: 'sessions', payload: null },
      // Arrived out of order: the crash update before the page's init update.
      {
        type: 'session',
        payload: { sid: 'e', status: 'crashed', errors: 1, timestamp: '2026-01-01T00:00:01Z' },
      },
      {
        type: 'session',
        payload: {
          sid: 'e',
          init: true,
          status: 'ok',
          errors: 0,
          timestamp: '2026-01-01T00:00:00Z',
        },
      },
      // Same status and errors: the later timestamp wins whatever the order.
      {
        type: 'session',
        payload: { sid: 'f', status: 'ok', errors: 1, timestamp: '2026-01-01T00:00:02Z' },
      },
      {
        type: 'session',
        payload: { sid: 'f', status: 'ok', errors: 0, timestamp: '2026-01-01T00:00:01Z' },
      },
    ])
    expect(totals).toEqual({
      healthy: 3,
      errored: 4,
      crashed: 3,
      unhandled: 1,
      abnormal: 1,
      users: 2,
    })
  })

  it('reads envelope items with and without a length', () => {
    const body = Buffer.from(
      '{"event_id":"x"}\n{"type":"sessions","length":17}\n{"aggregates":[]}\n{"type":"session"}\n{"sid":"a"}\n',
    )
    const items = envelopeItems(body)
    expect(items.map((i) => [i.type, i.payload.toString()])).toEqual([
      ['sessions', '{"aggregates":[]}'],
      ['session', '{"sid":"a"}'],
    ])
  })
})
