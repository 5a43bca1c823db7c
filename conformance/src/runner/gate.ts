/**
 * Release gating: a cell that passed in the baseline report (e.g. the last released server's)
 * and does not pass now is a regression, and the run must fail however green the rest is.
 */
import type { CellStatus, Report } from './report.ts'

/** A cell whose status got worse than in the baseline. */
export interface Regression {
  row: string
  scenario: string
  was: CellStatus
  now: CellStatus | 'absent'
  reason: string | undefined
}

/**
 * Cells that passed in `baseline` and now fail or could not run. A cell missing from the current
 * report (row or scenario removed from the matrix, or filtered out with --only) is not compared:
 * the gate is about the server, and a filtered run must not flag what it did not try.
 */
export function regressions(baseline: Report, current: Report): Regression[] {
  const now = new Map(current.cells.map((c) => [`${c.row}\u0000${c.scenario}`, c]))
  const found: Regression[] = []
  for (const before of baseline.cells) {
    if (before.status !== 'pass') continue
    const after = now.get(`${before.row}\u0000${before.scenario}`)
    if (after === undefined || after.status === 'pass' || after.status === 'unsupported') continue
    found.push({
      row: before.row,
      scenario: before.scenario,
      was: before.status,
      now: after.status,
      reason: after.reason,
    })
  }
  for (const before of baseline.fixtures) {
    if (before.status !== 'pass') continue
    const after = current.fixtures.find((f) => f.id === before.id)
    if (after === undefined || after.status === 'pass') continue
    found.push({
      row: 'fixtures',
      scenario: before.id,
      was: 'pass',
      now: after.status,
      reason: after.reason,
    })
  }
  return found
}

/** The difference as plain lines, printed before anything else when the gate fails. */
export function formatRegressions(found: readonly Regression[]): string {
  if (found.length === 0) return 'baseline: no regressions'
  const lines = found.map(
    (r) => `  ${r.row} × ${r.scenario}: ${r.was} → ${r.now}${r.reason ? ` (${r.reason})` : ''}`,
  )
  return `REGRESSIONS against the baseline (${found.length}):\n${lines.join('\n')}`
}
