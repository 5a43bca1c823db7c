/**
 * sentry-cli 2.x's legacy release files against the server the conformance project starts: the
 * app of the `source-maps` scenario (harness/source-maps-app.ts) built with stock
 * @sentry/browser 10 and a `release`, its minified file and map uploaded one by one with stock
 * sentry-cli 2.58 `releases files <release> upload` (no debug IDs injected), listed, run in
 * headless Chromium: the event's frames resolve by release and URL through those two files.
 * Then `delete <name>` and `delete --all` empty the release's list.
 */
import { afterAll, beforeAll, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { Api, frameSchema, type Project } from '../harness/api.ts'
import { type Browser, launchBrowser } from '../harness/browser.ts'
import {
  buildMinifiedApp,
  ORIGINAL,
  sentryCli2,
  throwInPage,
  uploadReleaseFilesWithCli,
} from '../harness/source-maps-app.ts'
import { waitFor } from '../harness/wait.ts'

const url = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(url, token)

const eventSchema = z.looseObject({
  release: z.string().optional(),
  exception: z.object({
    values: z.array(z.looseObject({ stacktrace: z.object({ frames: z.array(frameSchema) }) })),
  }),
})

let browser: Browser
let project: Project
let slug: string

beforeAll(async () => {
  browser = await launchBrowser()
  project = await api.createProject('browser-release-files')
  slug = project.slug
}, 120_000)
afterAll(async () => {
  await browser?.close()
})

it('release files uploaded by sentry-cli 2.58 resolve a @sentry/browser 10 event of the release', async () => {
  const release = `release-files@${Date.now()}`
  const target = { url, token, org: 'default', project: slug }
  const out = await buildMinifiedApp('sentry-browser-10', 5, release)
  const { cli, list } = await uploadReleaseFilesWithCli(out, target, release)
  expect(cli).toMatch(/^sentry-cli 2\.58\./)
  // The list shows both files, the minified one with the map its header names.
  expect(list).toMatch(/~\/app\.min\.js\s.*app\.min\.js\.map/)
  expect(list).toContain('~/app.min.js.map')

  await throwInPage(browser, out, project.dsn)
  const event = await waitFor(
    async () => {
      for (const issue of await api.issues(project.id))
        for (const e of await api.issueEvents(issue.id)) {
          const stored = await api.event(project.id, e.event_id)
          if (stored !== undefined) return eventSchema.parse(stored)
        }
      return undefined
    },
    { timeout: 10_000, message: 'the event is stored' },
  )
  expect(event.release).toBe(release)
  const frames = event.exception.values.at(-1)?.stacktrace.frames ?? []
  expect(frames.at(-1)).toMatchObject({
    function: ORIGINAL.thrower.function,
    filename: ORIGINAL.file,
    lineno: ORIGINAL.thrower.line,
    context_line: ORIGINAL.contextLine,
    data: { symbolicated: true, sourcemap: '~/app.min.js.map' },
  })
  expect(frames.at(-2)).toMatchObject({
    function: ORIGINAL.caller.function,
    lineno: ORIGINAL.caller.line,
  })

  const files = ['releases', 'files', release]
  expect(await sentryCli2(target, [...files, 'delete', '~/app.min.js'])).toContain('D ~/app.min.js')
  const after = await sentryCli2(target, [...files, 'list'])
  expect(after).toContain('~/app.min.js.map')
  expect(after).not.toMatch(/~\/app\.min\.js\s/)
  expect(await sentryCli2(target, [...files, 'delete', '--all'])).toContain('All files deleted.')
  expect(await sentryCli2(target, [...files, 'list'])).not.toContain('app.min.js')
}, 180_000)
