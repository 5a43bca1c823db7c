/**
 * A React app as most browser users run one: stock @sentry/react 11 with React 19, built by Vite
 * for production, its maps uploaded by stock sentry-cli, run in headless Chromium, with a
 * `Sentry.ErrorBoundary` around a component that throws while rendering. The SDK links a
 * synthetic "React ErrorBoundary Error" carrying the component stack as the thrown error's
 * `cause`: the issue is titled by the thrown error, both exceptions resolve to the original
 * `.jsx` files, and two renders and a rebuild with another minifier are one issue. Runs against
 * the server the conformance project starts.
 */
import { rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { Api, frameSchema, type Project } from '../harness/api.ts'
import { type Browser, launchBrowser } from '../harness/browser.ts'
import { buildReactApp, REACT_ORIGINAL } from '../harness/react-app.ts'
import { throwInPage, uploadWithCli } from '../harness/source-maps-app.ts'
import { waitFor } from '../harness/wait.ts'

const url = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(url, token)

const exceptionSchema = z.looseObject({
  type: z.string(),
  value: z.string().optional(),
  mechanism: z.looseObject({ type: z.string(), handled: z.boolean().optional() }).optional(),
  stacktrace: z.object({ frames: z.array(frameSchema) }),
})
const eventSchema = z.looseObject({
  issue_id: z.number(),
  exception: z.object({ values: z.array(exceptionSchema) }),
})

let browser: Browser
let project: Project
let slug: string
/** The built apps' directories (under `artifacts/`), removed after the file. */
const builds: string[] = []

beforeAll(async () => {
  browser = await launchBrowser()
  project = await api.createProject('browser-react')
  slug = project.slug
}, 120_000)
afterAll(async () => {
  await browser?.close()
  for (const dir of builds) await rm(dir, { recursive: true, force: true })
})

/** The ids of every event stored in the project so far. */
async function eventIds(): Promise<string[]> {
  const ids: string[] = []
  for (const i of await api.issues(project.id))
    for (const e of await api.issueEvents(i.id)) ids.push(e.event_id)
  return ids
}

/** Builds with `minify`, uploads, renders the boundary in two page loads; the new events' ids. */
async function renderTwice(minify: 'oxc' | 'esbuild'): Promise<string[]> {
  const out = await buildReactApp(minify)
  builds.push(dirname(out))
  await uploadWithCli('sentry-cli-3', out, { url, token, org: 'default', project: slug })
  const before = new Set(await eventIds())
  await throwInPage(browser, out, project.dsn)
  await throwInPage(browser, out, project.dsn)
  return waitFor(
    async () => {
      const fresh = (await eventIds()).filter((id) => !before.has(id))
      return fresh.length >= 2 ? fresh : undefined
    },
    { timeout: 10_000, message: 'both renders are stored' },
  )
}

describe('react', () => {
  const issues = new Set<number>()

  it('an ErrorBoundary error: titled by the thrown error, the component stack its resolved cause', async () => {
    const ids = await renderTwice('oxc')
    expect(ids).toHaveLength(2)
    for (const id of ids) {
      const event = eventSchema.parse(await api.event(project.id, id))
      issues.add(event.issue_id)
      const [cause, thrown] = event.exception.values
      expect(thrown).toMatchObject({
        type: 'Error',
        value: REACT_ORIGINAL.message,
        mechanism: { type: 'auto.function.react.error_boundary', handled: true },
      })
      expect(thrown?.stacktrace.frames.at(-1)).toMatchObject({
        function: REACT_ORIGINAL.thrower.function,
        filename: REACT_ORIGINAL.file,
        lineno: REACT_ORIGINAL.thrower.line,
        context_line: REACT_ORIGINAL.contextLine,
      })
      // The component stack, newest first as React writes it: the throwing component is the
      // newest frame, resolved to its own file.
      expect(cause).toMatchObject({
        type: 'React ErrorBoundary Error',
        value: REACT_ORIGINAL.message,
        mechanism: { type: 'chained' },
      })
      expect(cause?.stacktrace.frames.at(-1)).toMatchObject({
        function: REACT_ORIGINAL.thrower.function,
        filename: REACT_ORIGINAL.file,
      })
    }
    const [issue] = issues
    expect(await api.issue(issue as number)).toMatchObject({
      title: `Error: ${REACT_ORIGINAL.message}`,
      // Sentry's culprit names the module derived from the file (no extension).
      culprit: `Bomb(${REACT_ORIGINAL.file.replace(/\.\w+$/, '')})`,
    })
  }, 180_000)

  it('two renders and a build minified by esbuild are one issue', async () => {
    const ids = await renderTwice('esbuild')
    for (const id of ids) issues.add(eventSchema.parse(await api.event(project.id, id)).issue_id)
    expect(issues.size).toBe(1)
    const [issue] = issues
    expect((await api.issue(issue as number)).count).toBe(4)
  }, 180_000)
})
