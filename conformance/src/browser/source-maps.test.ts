/**
 * Source maps across the browser SDKs: the app of the matrix's `source-maps` scenario
 * (harness/source-maps-app.ts) built with stock @sentry/browser 11 and 10 into one project,
 * its maps uploaded by stock sentry-cli 3.8 and 2.58, run in headless Chromium. Each event
 * carries the original function, file, line and context, and the two builds (other minified
 * names) land in one issue: what a single matrix cell cannot see. Runs against the server the
 * conformance project starts.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { Api, frameSchema, type Project } from '../harness/api.ts'
import { type Browser, launchBrowser } from '../harness/browser.ts'
import {
  buildMinifiedApp,
  ORIGINAL,
  type SentryCli,
  throwInPage,
  uploadWithCli,
} from '../harness/source-maps-app.ts'
import { waitFor } from '../harness/wait.ts'

const url = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(url, token)

const eventSchema = z.looseObject({
  issue_id: z.number(),
  exception: z.object({
    values: z.array(z.looseObject({ stacktrace: z.object({ frames: z.array(frameSchema) }) })),
  }),
})

let browser: Browser
let project: Project
let slug: string
const issues: number[] = []

beforeAll(async () => {
  browser = await launchBrowser()
  project = await api.createProject('browser-source-maps')
  slug = project.slug
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

/** Builds the app with one SDK, injects and uploads with one CLI, sends its error; the event id. */
async function sendBuilt(sdk: string, cli: SentryCli, salt: number): Promise<string> {
  const out = await buildMinifiedApp(sdk, salt)
  await uploadWithCli(cli, out, { url, token, org: 'default', project: slug })
  const before = new Set<string>()
  for (const i of await api.issues(project.id))
    for (const e of await api.issueEvents(i.id)) before.add(e.event_id)
  await throwInPage(browser, out, project.dsn)
  const all = await waitFor(
    async () => {
      const ids: string[] = []
      for (const i of await api.issues(project.id))
        for (const e of await api.issueEvents(i.id)) ids.push(e.event_id)
      const fresh = ids.filter((id) => !before.has(id))
      return fresh.length > 0 ? fresh : undefined
    },
    { timeout: 10_000, message: 'the event is stored' },
  )
  return all[0] as string
}

describe('source-maps', () => {
  it.each([
    ['@sentry/browser', 'sentry-cli-3', 3],
    ['sentry-browser-10', 'sentry-cli-2', 7],
  ] as const)(
    '%s, maps uploaded by %s: the original frames',
    async (sdk, cli, salt) => {
      const id = await sendBuilt(sdk, cli, salt)
      const event = eventSchema.parse(await api.event(project.id, id))
      const frames = event.exception.values.at(-1)?.stacktrace.frames ?? []
      expect(frames.at(-1)).toMatchObject({
        function: ORIGINAL.thrower.function,
        filename: ORIGINAL.file,
        lineno: ORIGINAL.thrower.line,
        context_line: ORIGINAL.contextLine,
      })
      expect(frames.at(-2)).toMatchObject({
        function: ORIGINAL.caller.function,
        lineno: ORIGINAL.caller.line,
      })
      issues.push(event.issue_id)
    },
    180_000,
  )

  it('both builds are one issue', () => {
    expect(issues).toHaveLength(2)
    expect(new Set(issues).size).toBe(1)
  })
})
