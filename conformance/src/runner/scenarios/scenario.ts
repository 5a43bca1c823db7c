/** The shape of a scenario implementation: one column of the matrix. */
import type { CellContext } from '../context.ts'

/** A scenario: `run` throws to fail the cell. */
export interface Scenario {
  id: string
  run(ctx: CellContext): Promise<void>
}
