/**
 * Drafts a fixture's `.expected.json` by replaying the envelope against a scratch server.
 *
 *   npx tsx scripts/new-fixture.ts <file.envelope> [--as <area>/<case>]
 *
 * `<file.envelope>` is either a case already dropped into fixtures/envelopes/<area>/, or a
 * capture from scripts/capture.ts, which `--as` copies into fixtures/envelopes/<area>/<case>.envelope.
 * When the capture has its `<n>.request.json` next to it, the draft's `send` mirrors the SDK
 * request (Content-Encoding, Content-Type, query-string auth). The draft records what the
 * server did today, so review it: it is a starting point, not the truth. Never overwrites.
 */
import { copyFile, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import { z } from 'zod'
import { Api, type StoredEvent } from '../conformance/src/harness/api.ts'
import {
  type Expected,
  expectedSchema,
  mentionedEventIds,
  type SendOptions,
  sendEnvelope,
} from '../conformance/src/harness/fixtures.ts'
import { fixturesRoot } from '../conformance/src/harness/paths.ts'
import { startServer } from '../conformance/src/harness/server.ts'

const requestSchema = z.looseObject({
  url: z.string(),
  headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
})

/** Send options that reproduce the captured request, when capture.ts left its metadata. */
async function sendFromCapture(envelopePath: string): Promise<SendOptions | undefined> {
  const metaPath = envelopePath.replace(/\.envelope$/, '.request.json')
  const text = await readFile(metaPath, 'utf8').catch(() => undefined)
  if (text === undefined) return undefined
  const request = requestSchema.parse(JSON.parse(text))
  const send: SendOptions = {}
  const encoding = request.headers['content-encoding']
  if (encoding === 'gzip' || encoding === 'br' || encoding === 'deflate') {
    send.contentEncoding = encoding
  }
  const contentType = request.headers['content-type']
  if (typeof contentType === 'string') send.headers = { 'content-type': contentType }
  if (request.url.includes('sentry_key=')) send.auth = 'query'
  return send
}

/** The stable, reviewable part of a stored event (volatile fields left out on purpose). */
function draftMatch(event: StoredEvent): Record<string, unknown> {
  const match: Record<string, unknown> = {}
  for (const key of ['level', 'platform', 'release', 'environment', 'logger', 'transaction']) {
    if (typeof event[key] === 'string') match[key] = event[key]
  }
  const exception = z
    .object({
      values: z.array(z.looseObject({ type: z.string().optional(), value: z.string().optional() })),
    })
    .safeParse(event['exception'])
  if (exception.success) {
    match['exception'] = {
      values: exception.data.values.map(({ type, value }) => ({
        ...(type === undefined ? {} : { type }),
        ...(value === undefined ? {} : { value }),
      })),
    }
  }
  const logentry = z.object({ formatted: z.string() }).safeParse(event['logentry'])
  if (logentry.success) match['logentry'] = { formatted: logentry.data.formatted }
  return match
}

async function main(): Promise<void> {
  const args = process.argv.slice(2)
  const asIndex = args.indexOf('--as')
  const as = asIndex === -1 ? undefined : args[asIndex + 1]
  const input = args.find(
    (arg, i) => !arg.startsWith('--') && (asIndex === -1 || i !== asIndex + 1),
  )
  if (input === undefined || (asIndex !== -1 && as === undefined)) {
    throw new Error('usage: new-fixture.ts <file.envelope> [--as <area>/<case>]')
  }
  const source = resolve(input)
  const target = as === undefined ? source : join(fixturesRoot, 'envelopes', `${as}.envelope`)
  if (!target.endsWith('.envelope') || relative(fixturesRoot, target).startsWith('..')) {
    throw new Error(`${target} is not a .envelope under fixtures/ (use --as <area>/<case>)`)
  }
  const expectedPath = target.replace(/\.envelope$/, '.expected.json')
  const exists = async (path: string): Promise<boolean> =>
    readFile(path).then(
      () => true,
      () => false,
    )
  if (await exists(expectedPath)) {
    throw new Error(`${expectedPath} exists; new-fixture never overwrites (delete it to redraft)`)
  }
  const bytes = await readFile(source)
  if (target !== source) {
    if (await exists(target)) throw new Error(`${target} exists; pick another --as name`)
    await copyFile(source, target)
  }
  const send = await sendFromCapture(source)

  const server = await startServer()
  try {
    const api = new Api(server.url, server.adminToken)
    const project = await api.createProject('new-fixture')
    const target = { url: server.url, projectId: project.id, dsn: project.dsn }
    const response = await sendEnvelope(target, bytes, send)
    const events: NonNullable<Expected['events']> = []
    const issues: NonNullable<Expected['issues']> = {}
    const labels = new Map<string, string>()
    const all = await api.issues(project.id)
    for (const eventId of mentionedEventIds(bytes)) {
      const event = await api.event(project.id, eventId)
      if (event === undefined) continue
      const issueId = String(event.issue_id)
      let label = labels.get(issueId)
      if (label === undefined) {
        label = String.fromCharCode(65 + labels.size)
        labels.set(issueId, label)
        const issue = all.find((candidate) => String(candidate.id) === issueId)
        if (issue !== undefined) {
          issues[label] = { title: issue.title, level: issue.level, count: issue.count }
        }
      }
      events.push({ event_id: eventId, issue: label, match: draftMatch(event) })
    }
    const draft: Expected = {
      $schema: relative(dirname(expectedPath), join(fixturesRoot, 'schema/expected.schema.json')),
      description: 'DRAFT: say in one sentence what this case covers',
      source: 'TODO: SDK and version, captured with scripts/capture.ts (or hand-made)',
      ...(send === undefined || Object.keys(send).length === 0 ? {} : { send }),
      response: {
        status: response.status,
        ...(response.body === undefined ? {} : { body: response.body }),
      },
      events,
      ...(Object.keys(issues).length === 0 ? {} : { issues }),
    }
    expectedSchema.parse(draft)
    await writeFile(expectedPath, `${JSON.stringify(draft, null, 2)}\n`, { flag: 'wx' })
    console.log(
      `wrote ${relative(process.cwd(), expectedPath)}: review it, then run fixtures:check`,
    )
  } finally {
    await server.stop()
  }
}

await main()
