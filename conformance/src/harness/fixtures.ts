/**
 * Fixture cases: raw envelopes plus a sidecar `.expected.json`, found by walking `fixtures/`.
 * The zod schema here is the single source of truth; `fixtures/schema/expected.schema.json`
 * is generated from it (see scripts/check-fixtures.ts) for editors.
 */
import { readdir, readFile } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib'
import { z } from 'zod'
import { fixturesRoot } from './paths.ts'

/**
 * The DSN public key every capture uses (scripts/capture.ts): obviously fake, yet valid for
 * every SDK (JS wants `\w+`, Relay 32 characters). The only key allowed inside fixtures.
 */
export const FIXTURE_PUBLIC_KEY = 'fixture0000000000000000000000000'

const hex32 = /^[0-9a-f]{32}$/

/** How the runner sends a case's bytes. */
export const sendSchema = z
  .strictObject({
    contentEncoding: z
      .enum(['identity', 'gzip', 'deflate', 'br'])
      .optional()
      .describe('Compress the stored (decoded) bytes with this encoding before sending.'),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Extra request headers, e.g. the content-type the SDK sent.'),
    auth: z
      .enum(['header', 'query', 'envelope'])
      .optional()
      .describe(
        'Where the project key goes: X-Sentry-Auth (default), ?sentry_key= (JS style), or ' +
          'only the envelope header dsn (Go style / tunnels).',
      ),
  })
  .describe('Request options; by default the bytes go uncompressed with X-Sentry-Auth.')

/** The expected stored event, compared partially. */
export const expectedEventSchema = z.strictObject({
  event_id: z.string().regex(hex32).describe('32 lowercase hex digits, as stored.'),
  issue: z
    .string()
    .regex(/^[A-Z][A-Za-z0-9]*$/)
    .optional()
    .describe('Issue label local to the case: same label = same issue, different = different.'),
  match: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Partial object the stored event must match (toMatchObject).'),
})

/** The expected issue for a label, compared partially. */
export const expectedIssueSchema = z.strictObject({
  title: z.string().optional(),
  culprit: z.string().optional(),
  level: z.string().optional(),
  count: z.number().int().nonnegative().optional().describe('Events in the issue.'),
})

/** One summed outcome counter of the case's project (`GET /api/0/projects/{id}/outcomes/`). */
export const expectedOutcomeSchema = z.strictObject({
  outcome: z
    .enum(['accepted', 'duplicate', 'rejected', 'over_quota', 'unsupported', 'client_discard'])
    .describe('See docs/outcomes.md.'),
  reason: z.string().default('').describe('e.g. `invalid_json`, `transaction`; empty for none.'),
  category: z.string().describe('Data category: `error`, `transaction`, `log_item`, `internal`…'),
  quantity: z.number().int().positive(),
})

/** The whole `.expected.json` file. */
export const expectedSchema = z
  .strictObject({
    $schema: z.string().optional(),
    description: z.string().min(1).describe('What the case covers, one sentence.'),
    source: z
      .string()
      .optional()
      .describe('Where the bytes come from (SDK and version, or hand-made).'),
    pending: z
      .string()
      .min(1)
      .optional()
      .describe('Not implemented yet: the case becomes it.todo with this reason.'),
    send: sendSchema.optional(),
    quota: z
      .strictObject({
        events: z.number().int().nonnegative(),
        window_seconds: z.number().int().positive(),
      })
      .optional()
      .describe(
        'Event quota set on the fresh project before sending. After a 429 the runner waits ' +
          'its Retry-After before the next envelope, as an SDK would.',
      ),
    response: z.strictObject({
      status: z.number().int().min(100).max(599),
      statuses: z
        .array(z.number().int().min(100).max(599))
        .optional()
        .describe(
          'Sequences: the status of each envelope in order; `status` must be the last of them.',
        ),
      body: z.unknown().optional().describe('Exact JSON body (toEqual); omit to not compare.'),
    }),
    outcomes: z
      .array(expectedOutcomeSchema)
      .optional()
      .describe('When present, the complete outcome counters of the project, in any order.'),
    events: z
      .array(expectedEventSchema)
      .optional()
      .describe('When present, the complete list: the project ends up with exactly these issues.'),
    issues: z
      .record(z.string(), expectedIssueSchema)
      .optional()
      .describe('Issue label -> expected issue fields.'),
  })
  .describe('Expected outcome of sending one fixture envelope (or sequence) to a fresh project.')

/** A parsed `.expected.json`. */
export type Expected = z.infer<typeof expectedSchema>
/** A case's request options. */
export type SendOptions = z.infer<typeof sendSchema>

/** One case: an envelope (or a sequence of them) and what should happen. */
export interface FixtureCase {
  /** Path relative to `fixtures/` without extension, e.g. `envelopes/event/node-11-error`. */
  id: string
  /** The bytes to send, in order (one for `envelopes/`, several for `sequences/`). */
  envelopes: Buffer[]
  /** Absolute path of the expected file. */
  expectedPath: string
  expected: Expected
}

/** All files under `dir`, as absolute paths (Node 20 has no fs.glob). */
export async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(
    (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return []
      throw error
    },
  )
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort()
}

/** Reads and validates one expected file. */
export async function readExpected(path: string): Promise<Expected> {
  const text = await readFile(path, 'utf8')
  return expectedSchema.parse(JSON.parse(text))
}

/** The case id of a path: relative to `fixtures/` in POSIX form, minus `suffix`. */
function caseId(root: string, path: string, suffix = ''): string {
  const id = relative(root, path).split(sep).join('/')
  return suffix === '' ? id : id.slice(0, -suffix.length)
}

/**
 * Every case under `fixtures/envelopes` (`<area>/<case>.envelope` + `.expected.json`) and
 * `fixtures/sequences` (`<case>/NN.envelope` + `expected.json`). Throws on an unreadable or
 * invalid expected file; pairing problems are scripts/check-fixtures.ts's job.
 */
export async function loadFixtureCases(root: string = fixturesRoot): Promise<FixtureCase[]> {
  const cases: FixtureCase[] = []
  for (const path of await listFiles(join(root, 'envelopes'))) {
    if (!path.endsWith('.envelope')) continue
    const expectedPath = `${path.slice(0, -'.envelope'.length)}.expected.json`
    cases.push({
      id: caseId(root, path, '.envelope'),
      envelopes: [await readFile(path)],
      expectedPath,
      expected: await readExpected(expectedPath),
    })
  }
  const sequenceFiles = await listFiles(join(root, 'sequences'))
  for (const expectedPath of sequenceFiles.filter((path) => path.endsWith('/expected.json'))) {
    const dir = expectedPath.slice(0, -'/expected.json'.length)
    const steps = sequenceFiles.filter(
      (path) => path.startsWith(`${dir}/`) && /^\d+\.envelope$/.test(path.slice(dir.length + 1)),
    )
    cases.push({
      id: caseId(root, dir),
      envelopes: await Promise.all(steps.map((path) => readFile(path))),
      expectedPath,
      expected: await readExpected(expectedPath),
    })
  }
  return cases
}

/** Where an envelope goes and who it claims to be from. */
export interface Target {
  /** Server base URL. */
  url: string
  /** The receiving project's id and DSN. */
  projectId: number
  dsn: string
}

/**
 * The envelope with its header `dsn` replaced by the target's (captured DSNs point at a
 * capture server), or added when `auth` is `envelope`. Other bytes are left untouched, and
 * so is a header line that is not a JSON object (invalid cases).
 */
export function retarget(envelope: Buffer, dsn: string, auth: SendOptions['auth']): Buffer {
  const newline = envelope.indexOf(0x0a)
  const headerEnd = newline === -1 ? envelope.length : newline
  let header: unknown
  try {
    header = JSON.parse(envelope.subarray(0, headerEnd).toString('utf8'))
  } catch {
    return envelope
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) return envelope
  if (!('dsn' in header) && auth !== 'envelope') return envelope
  const rewritten = Buffer.from(JSON.stringify({ ...header, dsn }), 'utf8')
  return Buffer.concat([rewritten, envelope.subarray(headerEnd)])
}

/** Content-Encoding name -> encoder (deflate is zlib-wrapped, as Relay expects). */
const encoders = {
  identity: (body: Buffer) => body,
  gzip: (body: Buffer) => gzipSync(body),
  deflate: (body: Buffer) => deflateSync(body),
  br: (body: Buffer) => brotliCompressSync(body),
} satisfies Record<NonNullable<SendOptions['contentEncoding']>, (body: Buffer) => Buffer>

/** The response to one ingest request, body parsed as JSON when it is JSON. */
export interface IngestResponse {
  status: number
  body: unknown
  text: string
  headers: Headers
}

/**
 * Sends one envelope the way the case says (encoding, headers, auth placement) to
 * `POST /api/<project>/envelope/`.
 */
export async function sendEnvelope(
  target: Target,
  envelope: Buffer,
  send: SendOptions = {},
): Promise<IngestResponse> {
  const url = new URL(target.dsn)
  const publicKey = url.username
  const auth = send.auth ?? 'header'
  const client = 'sentry.conformance-fixtures/1.0.0'
  const body = encoders[send.contentEncoding ?? 'identity'](retarget(envelope, target.dsn, auth))
  const headers: Record<string, string> = { ...send.headers }
  if (send.contentEncoding !== undefined && send.contentEncoding !== 'identity') {
    headers['content-encoding'] = send.contentEncoding
  }
  let query = ''
  if (auth === 'header') {
    headers['x-sentry-auth'] =
      `Sentry sentry_key=${publicKey}, sentry_version=7, sentry_client=${client}`
  } else if (auth === 'query') {
    query = `?${new URLSearchParams({ sentry_version: '7', sentry_key: publicKey, sentry_client: client })}`
  }
  const response = await fetch(`${target.url}/api/${target.projectId}/envelope/${query}`, {
    method: 'POST',
    headers,
    body,
  })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: response.status, body: parsed, text, headers: response.headers }
}

/** Event ids an envelope's bytes mention (header and payloads), normalised to 32 hex. */
export function mentionedEventIds(envelope: Buffer): Set<string> {
  const ids = new Set<string>()
  const text = envelope.toString('latin1')
  for (const match of text.matchAll(/"event_id"\s*:\s*"([0-9a-fA-F-]{32,36})"/g)) {
    const id = match[1]?.replaceAll('-', '').toLowerCase()
    if (id !== undefined && hex32.test(id)) ids.add(id)
  }
  return ids
}
