/**
 * The compatibility report: every cell of the matrix with its status and evidence. The JSON form
 * is versioned (`schemaVersion`) because other tools read it — the release gate compares two of
 * them, CI systems archive them — and the Markdown, JUnit and HTML forms are rendered from it.
 */
import { z } from 'zod'

/** Bump when a field changes meaning or disappears; adding optional fields keeps the version. */
export const REPORT_SCHEMA_VERSION = 1

/** What the SDK sent through the recording proxy, and what the server answered. */
export const requestEvidenceSchema = z.looseObject({
  at: z.string(),
  method: z.string(),
  path: z.string(),
  encoding: z.string().optional(),
  itemTypes: z.array(z.string()),
  /** The server's status; 0 for a request it had not answered when the cell ended. */
  status: z.number(),
  retryAfter: z.string().optional(),
  rateLimits: z.string().optional(),
  answer: z.string(),
  /** Milliseconds from the proxy receiving the request to the server's answer (or so far). */
  ms: z.number().optional(),
  /** Of those, from the proxy forwarding it (the SDK's body read) to the server's answer. */
  serverMs: z.number().optional(),
  /** True for a request the server had not answered when the cell ended. */
  pending: z.boolean().optional(),
})
/** One recorded request in a cell's evidence. */
export type RequestEvidence = z.infer<typeof requestEvidenceSchema>

/** Everything a reader needs to see why a cell passed or failed. */
export const evidenceSchema = z.looseObject({
  projects: z.array(z.number()),
  requests: z.array(requestEvidenceSchema),
  /** What the cell read back from the management API (label → value). */
  readBack: z.array(z.looseObject({ label: z.string(), value: z.unknown() })),
  sdk: z.looseObject({ package: z.string(), version: z.string() }).optional(),
  error: z.string().optional(),
})
/** A cell's evidence. */
export type Evidence = z.infer<typeof evidenceSchema>

/** The four states of a cell. */
export const cellStatusSchema = z.enum(['pass', 'fail', 'unsupported', 'not-run'])
/** A cell's status. */
export type CellStatus = z.infer<typeof cellStatusSchema>

/** One cell's result. */
export const cellResultSchema = z.looseObject({
  row: z.string(),
  scenario: z.string(),
  status: cellStatusSchema,
  /** Why it is unsupported, not run, or (shortly) why it failed. */
  reason: z.string().optional(),
  durationMs: z.number().optional(),
  evidence: evidenceSchema.optional(),
})
/** A cell result. */
export type CellResult = z.infer<typeof cellResultSchema>

/** One fixture case replayed against the target. */
export const fixtureResultSchema = z.looseObject({
  id: z.string(),
  description: z.string(),
  status: cellStatusSchema,
  reason: z.string().optional(),
  durationMs: z.number().optional(),
})
/** A fixture result. */
export type FixtureResult = z.infer<typeof fixtureResultSchema>

/** The whole report. */
export const reportSchema = z.looseObject({
  schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
  generatedAt: z.string(),
  target: z.looseObject({ url: z.string(), startedByRunner: z.boolean() }),
  capabilities: z.record(z.string(), z.looseObject({ available: z.boolean(), reason: z.string() })),
  scenarios: z.array(z.looseObject({ id: z.string(), title: z.string() })),
  rows: z.array(
    z.looseObject({
      id: z.string(),
      label: z.string(),
      /** The SDK the row belongs to and the web framework of its app (matrix.json). */
      family: z.string().optional(),
      framework: z.string().optional(),
      sdk: z.looseObject({ package: z.string(), version: z.string() }).optional(),
    }),
  ),
  cells: z.array(cellResultSchema),
  fixtures: z.array(fixtureResultSchema),
  summary: z.looseObject({
    pass: z.number(),
    fail: z.number(),
    unsupported: z.number(),
    notRun: z.number(),
  }),
})
/** A compatibility report. */
export type Report = z.infer<typeof reportSchema>

/** Counts of a list of results by status. */
export function summarize(results: readonly { status: CellStatus }[]): Report['summary'] {
  const count = (s: CellStatus) => results.filter((r) => r.status === s).length
  return {
    pass: count('pass'),
    fail: count('fail'),
    unsupported: count('unsupported'),
    notRun: count('not-run'),
  }
}
