/**
 * Lint for contributor-owned fixtures (test262's tools/lint in miniature): pairing, schema,
 * names, and no real keys. Used by scripts/check-fixtures.ts and by a unit test, so CI
 * enforces it either way.
 */
import { readFile } from 'node:fs/promises'
import { basename, dirname, join, relative, sep } from 'node:path'
import { z } from 'zod'
import {
  type Expected,
  expectedSchema,
  FIXTURE_PUBLIC_KEY,
  listFiles,
  mentionedEventIds,
} from './fixtures.ts'
import { fixturesRoot } from './paths.ts'

/** Where the generated JSON Schema lives, relative to `fixtures/`. */
export const SCHEMA_PATH = 'schema/expected.schema.json'

/** Keys that may appear in fixtures as DSN or auth keys. */
const ALLOWED_KEYS = new Set([FIXTURE_PUBLIC_KEY])

const kebab = /^[a-z0-9]+(?:-[a-z0-9]+)*$/
/** `<sdk>-<what>`: at least two kebab segments. */
const caseName = /^[a-z0-9]+(?:-[a-z0-9]+)+$/

/** The JSON Schema text generated from the zod schema, as it must be on disk. */
export function expectedJsonSchema(): string {
  const schema = z.toJSONSchema(expectedSchema, { io: 'input' })
  return `${JSON.stringify({ ...schema, title: 'Fixture expected outcome' }, null, 2)}\n`
}

/** Secrets or non-placeholder keys in a fixture's text. */
export function findSecrets(text: string): string[] {
  const found: string[] = []
  const key = (what: string, value: string | undefined): void => {
    if (value !== undefined && !ALLOWED_KEYS.has(value)) found.push(`${what} ${value}`)
  }
  for (const m of text.matchAll(/\b(?:https?|wss?):\/\/([^:@/\s"'\\]+)(?::([^@/\s"'\\]*))?@/g)) {
    key('DSN key', m[1])
    if (m[2] !== undefined) found.push('DSN with a secret key')
  }
  for (const m of text.matchAll(/sentry_key=([^&,\s"'\\]+)/g)) key('sentry_key', m[1])
  for (const m of text.matchAll(/"public_key"\s*:\s*"([^"]*)"/g)) key('public_key', m[1])
  const patterns: [string, RegExp][] = [
    ['sentry_secret', /sentry_secret=/],
    ['private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
    ['AWS access key', /\bAKIA[0-9A-Z]{16}\b/],
    ['GitHub token', /\bgh[pousr]_[A-Za-z0-9]{36}\b/],
    ['Slack token', /\bxox[abprs]-[A-Za-z0-9-]{10,}/],
    ['Stripe key', /\b[sr]k_live_[A-Za-z0-9]{10,}/],
    ['bearer token', /\bBearer [A-Za-z0-9._~+/-]{20,}/],
    ['Sentry auth token', /\bsntry[su]_[A-Za-z0-9+/=_-]{20,}/],
  ]
  for (const [what, pattern] of patterns) if (pattern.test(text)) found.push(what)
  return found
}

/** Rules that need the parsed expectation and the bytes together. */
function checkCase(name: string, expected: Expected, envelopes: Buffer[]): string[] {
  const problems: string[] = []
  const mentioned = new Set(envelopes.flatMap((envelope) => [...mentionedEventIds(envelope)]))
  for (const event of expected.events ?? []) {
    if (!mentioned.has(event.event_id)) {
      problems.push(`${name}: event ${event.event_id} does not occur in the envelope bytes`)
    }
  }
  const labels = new Set((expected.events ?? []).flatMap((event) => event.issue ?? []))
  for (const label of Object.keys(expected.issues ?? {})) {
    if (!labels.has(label)) problems.push(`${name}: issue label ${label} is used by no event`)
  }
  if (expected.issues !== undefined && expected.events === undefined) {
    problems.push(`${name}: "issues" needs "events" to map labels to events`)
  }
  if (name.split('/').includes('invalid')) {
    const { status } = expected.response
    if (status < 400 || status > 499) problems.push(`${name}: invalid/ cases expect a 4xx status`)
    if (expected.events === undefined || expected.events.length > 0) {
      problems.push(`${name}: invalid/ cases must declare "events": []`)
    }
  }
  const { statuses } = expected.response
  if (statuses !== undefined) {
    if (statuses.length !== envelopes.length) {
      problems.push(`${name}: response.statuses needs one status per envelope`)
    }
    if (statuses.at(-1) !== expected.response.status) {
      problems.push(`${name}: response.status must equal the last of response.statuses`)
    }
  }
  if (envelopes.length > 1 && expected.response.body !== undefined) {
    problems.push(`${name}: sequences cannot declare one response body for several envelopes`)
  }
  return problems
}

/** Parses and schema-checks an expected file, returning problems instead of throwing. */
async function parseExpected(path: string, name: string): Promise<Expected | string> {
  let json: unknown
  try {
    json = JSON.parse(await readFile(path, 'utf8'))
  } catch (error) {
    return `${name}: not JSON (${(error as Error).message})`
  }
  const result = expectedSchema.safeParse(json)
  if (!result.success) {
    return `${name}: schema: ${z.prettifyError(result.error).replaceAll('\n', '; ')}`
  }
  return result.data
}

/** Checks one envelope + expected pair (or sequence directory). */
async function checkPair(
  name: string,
  expectedPath: string,
  envelopePaths: string[],
): Promise<string[]> {
  const problems: string[] = []
  const expected = await parseExpected(expectedPath, name)
  if (typeof expected === 'string') problems.push(expected)
  const envelopes = await Promise.all(envelopePaths.map((path) => readFile(path)))
  for (const [i, bytes] of envelopes.entries()) {
    if (bytes.length === 0) problems.push(`${name}: empty envelope ${envelopePaths[i]}`)
  }
  const texts = [
    ...envelopes.map((bytes) => bytes.toString('latin1')),
    await readFile(expectedPath, 'utf8'),
  ]
  for (const secret of new Set(texts.flatMap(findSecrets))) {
    problems.push(`${name}: looks like a real secret: ${secret} (use ${FIXTURE_PUBLIC_KEY})`)
  }
  if (typeof expected !== 'string') problems.push(...checkCase(name, expected, envelopes))
  return problems
}

/**
 * Every problem with the fixtures under `root`; empty means CI is happy. Checks that each
 * `.envelope` has its `.expected.json` and vice versa, that expected files match the schema,
 * that names are kebab-case `<sdk>-<what>`, that no real-looking key or secret is present,
 * and that `schema/expected.schema.json` is the one generated from the zod schema.
 */
export async function checkFixtures(root: string = fixturesRoot): Promise<string[]> {
  const problems: string[] = []
  const rel = (path: string): string => relative(root, path).split(sep).join('/')

  const schemaOnDisk = await readFile(join(root, SCHEMA_PATH), 'utf8').catch(() => '')
  if (schemaOnDisk !== expectedJsonSchema()) {
    problems.push(
      `${SCHEMA_PATH} is stale: run \`npx tsx scripts/check-fixtures.ts --write-schema\``,
    )
  }

  const files = await listFiles(join(root, 'envelopes'))
  const fileSet = new Set(files)
  for (const path of files) {
    const name = rel(path)
    const area = rel(dirname(path)).split('/').slice(1)
    for (const segment of area) {
      if (!kebab.test(segment)) problems.push(`${name}: directory ${segment} is not kebab-case`)
    }
    if (path.endsWith('.envelope')) {
      const stem = path.slice(0, -'.envelope'.length)
      if (!caseName.test(basename(stem))) {
        problems.push(`${name}: case name must be kebab-case <sdk>-<what>`)
      }
      if (!fileSet.has(`${stem}.expected.json`)) {
        problems.push(`${name}: missing ${basename(stem)}.expected.json`)
        continue
      }
      problems.push(...(await checkPair(name, `${stem}.expected.json`, [path])))
    } else if (path.endsWith('.expected.json')) {
      if (!fileSet.has(`${path.slice(0, -'.expected.json'.length)}.envelope`)) {
        problems.push(`${name}: no matching .envelope`)
      }
    } else {
      problems.push(`${name}: unexpected file (only <case>.envelope and <case>.expected.json)`)
    }
  }

  const sequenceFiles = await listFiles(join(root, 'sequences'))
  const dirs = new Set(sequenceFiles.map((path) => dirname(path)))
  for (const dir of dirs) {
    const name = rel(dir)
    if (!caseName.test(basename(dir))) problems.push(`${name}: case name must be kebab-case`)
    const inDir = sequenceFiles.filter((path) => dirname(path) === dir)
    const steps = inDir.filter((path) => /^\d{2}\.envelope$/.test(basename(path)))
    for (const path of inDir) {
      if (!steps.includes(path) && basename(path) !== 'expected.json') {
        problems.push(`${rel(path)}: unexpected file (only NN.envelope and expected.json)`)
      }
    }
    if (steps.length === 0) problems.push(`${name}: no NN.envelope files`)
    if (!inDir.includes(join(dir, 'expected.json'))) {
      problems.push(`${name}: missing expected.json`)
      continue
    }
    problems.push(...(await checkPair(name, join(dir, 'expected.json'), steps)))
  }
  return problems
}
