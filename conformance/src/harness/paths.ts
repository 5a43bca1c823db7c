/** Absolute paths the harness needs, derived from this file so any cwd works. */
import { fileURLToPath } from 'node:url'

/** The repository root (where the workspaces' package.json lives). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))

/** The conformance workspace (drivers, .venv). */
export const conformanceRoot = fileURLToPath(new URL('../../', import.meta.url))

/** Contributor-owned fixture data. */
export const fixturesRoot = fileURLToPath(new URL('../../../fixtures/', import.meta.url))
