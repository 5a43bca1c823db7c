import { describe, expect, it } from 'vitest'
import { formatRegressions, regressions } from './gate.ts'
import { loadMatrix, MATRIX_PATH, type Matrix, matrixProblems } from './matrix.ts'
import { renderJunit } from './render.ts'
import { type CellResult, REPORT_SCHEMA_VERSION, type Report, summarize } from './report.ts'
import { runMatrix } from './run.ts'
import { SCENARIOS } from './scenarios/index.ts'

function report(cells: CellResult[]): Report {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: '2026-01-01T00:00:00Z',
    target: { url: 'http://x', startedByRunner: false },
    capabilities: {},
    scenarios: [],
    rows: [],
    cells,
    fixtures: [],
    summary: summarize(cells),
  }
}

describe('release gate', () => {
  it('flags pass → fail and pass → not run, not new failures, declared gaps or filtered cells', () => {
    const before = report([
      { row: 'a', scenario: 'x', status: 'pass' },
      { row: 'a', scenario: 'y', status: 'pass' },
      { row: 'a', scenario: 'z', status: 'fail' },
      { row: 'a', scenario: 'w', status: 'pass' },
      { row: 'b', scenario: 'x', status: 'pass' },
    ])
    const after = report([
      { row: 'a', scenario: 'x', status: 'fail', reason: 'boom' },
      { row: 'a', scenario: 'y', status: 'not-run', reason: 'no clock' },
      { row: 'a', scenario: 'z', status: 'fail' },
      { row: 'a', scenario: 'w', status: 'unsupported', reason: 'dropped by the SDK' },
    ])
    const found = regressions(before, after)
    expect(found.map((r) => `${r.row}/${r.scenario}:${r.now}`)).toEqual(['a/x:fail', 'a/y:not-run'])
    expect(formatRegressions(found)).toContain('a × x: pass → fail (boom)')
    expect(regressions(before, before)).toEqual([])
  })
})

describe('matrix.json', () => {
  it('declares every cell of every row, and every scenario has an implementation', () => {
    const matrix = loadMatrix(MATRIX_PATH, new Set(SCENARIOS.keys()))
    expect(matrix.rows.length).toBeGreaterThan(5)
  })

  it('reports undeclared, unknown and unimplemented cells', () => {
    const bad: Matrix = {
      schema: 1,
      scenarios: [
        { id: 'x', title: 'x' },
        { id: 'ghost', title: 'no code' },
      ],
      rows: [{ id: 'r', label: 'r', family: 'f', driver: 'node', cells: { y: 'expected' } }],
    }
    expect(matrixProblems(bad, new Set(['x']))).toEqual([
      'scenario ghost has no implementation',
      'row r does not declare x',
      'row r does not declare ghost',
      'row r declares unknown scenario y',
    ])
  })
})

describe('JUnit XML', () => {
  it('escapes markup and drops control characters from evidence', () => {
    const xml = renderJunit(
      report([
        {
          row: 'r',
          scenario: 's',
          status: 'fail',
          reason: '<b> & "q"',
          evidence: { projects: [], requests: [], readBack: [], error: 'x\u0000\u001by' },
        },
      ]),
    )
    expect(xml).toContain('<failure message="&lt;b&gt; &amp; &quot;q&quot;">xy</failure>')
    expect(xml).toContain('tests="1" failures="1"')
  })
})

describe('a driver whose runtime is missing', () => {
  const matrix: Matrix = {
    schema: 1,
    scenarios: [
      { id: 'lands-and-groups', title: 'x' },
      { id: 'missed-run', title: 'y', needs: ['test-clock'] },
    ],
    rows: [
      {
        id: 'gone',
        label: 'gone',
        family: 'gone',
        driver: 'gone',
        cells: { 'lands-and-groups': 'expected', 'missed-run': { unsupported: 'not in this SDK' } },
      },
    ],
  }
  const run = (ci: boolean) =>
    runMatrix({
      url: 'http://127.0.0.1:9',
      token: 't',
      startedByRunner: false,
      matrix,
      capabilities: { 'test-clock': { available: false, reason: 'no clock' } },
      concurrency: 1,
      ci,
      log: () => {},
      loadDriver: (name) => ({
        name,
        runtime: 'none',
        description: '',
        command: ['none'],
        sdks: ['x'],
        scenarios: [],
        needs: [],
        missing: 'no such runtime: install it',
      }),
    })

  it('is not run off CI, with the reason', async () => {
    const report = await run(false)
    expect(report.cells.map((c) => [c.scenario, c.status, c.reason])).toEqual([
      ['lands-and-groups', 'not-run', 'runtime missing: no such runtime: install it'],
      ['missed-run', 'unsupported', 'not in this SDK'],
    ])
  })

  it('is a failure on CI', async () => {
    const report = await run(true)
    expect(report.cells[0]).toMatchObject({ status: 'fail', reason: expect.stringMatching(/CI/) })
    expect(report.summary).toMatchObject({ pass: 0, fail: 1, unsupported: 1, notRun: 0 })
  })
})
