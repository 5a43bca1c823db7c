/**
 * The conformance matrix (`conformance/matrix.json`): which SDK runs which scenario. It is data a
 * contributor extends — a new SDK is a row, a new scenario a column — and every cell must be
 * declared, either expected to pass or not supported with the reason, so a gap is always a
 * decision someone wrote down, never an accident.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import { conformanceRoot } from '../harness/paths.ts'

/** Server capabilities a scenario can need; the runner probes the target for each. */
export const capabilitySchema = z.enum(['test-clock'])
/** A server capability. */
export type Capability = z.infer<typeof capabilitySchema>

const cellSchema = z.union([
  z.literal('expected'),
  z.strictObject({ unsupported: z.string().min(10) }),
])
/** One declared cell: expected to pass, or not supported by that SDK with the reason. */
export type Cell = z.infer<typeof cellSchema>

const idSchema = z.string().regex(/^[a-z0-9][a-z0-9-]*$/)

/** The whole file. */
export const matrixSchema = z.strictObject({
  $comment: z.string().optional(),
  schema: z.literal(1),
  scenarios: z.array(
    z.strictObject({
      id: idSchema,
      title: z.string(),
      needs: z.array(capabilitySchema).optional(),
    }),
  ),
  rows: z.array(
    z.strictObject({
      id: idSchema,
      label: z.string(),
      /** The SDK the row belongs to (e.g. `@sentry/node`): the report groups rows by it. */
      family: z.string(),
      /** The web framework whose stock integration the row's app uses, if any (e.g. Express). */
      framework: z.string().optional(),
      /** `conformance/drivers/<driver>/driver.json`. */
      driver: z.string(),
      /** Which of the driver's `sdks` (its `--sdk` value); omitted for single-SDK drivers. */
      sdk: z.string().optional(),
      cells: z.record(z.string(), cellSchema),
    }),
  ),
})
/** The parsed matrix. */
export type Matrix = z.infer<typeof matrixSchema>
/** One SDK row. */
export type Row = Matrix['rows'][number]
/** One scenario column. */
export type ScenarioColumn = Matrix['scenarios'][number]

/** The default matrix file. */
export const MATRIX_PATH = join(conformanceRoot, 'matrix.json')

/**
 * Problems of a matrix beyond its shape: duplicate ids, undeclared or unknown cells, scenarios
 * without an implementation (`implemented` lists the ids the runner has code for).
 */
export function matrixProblems(matrix: Matrix, implemented: ReadonlySet<string>): string[] {
  const problems: string[] = []
  const scenarioIds = new Set<string>()
  for (const s of matrix.scenarios) {
    if (scenarioIds.has(s.id)) problems.push(`scenario ${s.id} is declared twice`)
    scenarioIds.add(s.id)
    if (!implemented.has(s.id)) problems.push(`scenario ${s.id} has no implementation`)
  }
  const rowIds = new Set<string>()
  for (const row of matrix.rows) {
    if (rowIds.has(row.id)) problems.push(`row ${row.id} is declared twice`)
    rowIds.add(row.id)
    for (const id of scenarioIds) {
      if (row.cells[id] === undefined) problems.push(`row ${row.id} does not declare ${id}`)
    }
    for (const id of Object.keys(row.cells)) {
      if (!scenarioIds.has(id)) problems.push(`row ${row.id} declares unknown scenario ${id}`)
    }
  }
  return problems
}

/** Reads and validates a matrix file; throws listing every problem. */
export function loadMatrix(path: string, implemented: ReadonlySet<string>): Matrix {
  const matrix = matrixSchema.parse(JSON.parse(readFileSync(path, 'utf8')))
  const problems = matrixProblems(matrix, implemented)
  if (problems.length > 0) throw new Error(`${path}:\n  ${problems.join('\n  ')}`)
  return matrix
}
