/**
 * A Vue 3 app as browser users build one: stock @sentry/vue 11 (`app.config.errorHandler` set
 * by the SDK, `attachProps`), single-file components built by Vite with `@vitejs/plugin-vue`,
 * maps uploaded by stock sentry-cli, run in headless Chromium. An error in a component's method
 * and one in an `onMounted` hook: each resolves to its `.vue` file with the SFC's own lines,
 * carries the Vue mechanism and a `vue` context naming the component with its props scrubbed.
 * Runs against the server the conformance project starts.
 */
import { rm } from 'node:fs/promises'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { Api, frameSchema, type Project } from '../harness/api.ts'
import { type Browser, launchBrowser } from '../harness/browser.ts'
import { throwInPage, uploadWithCli } from '../harness/source-maps-app.ts'
import { buildVueApp, VUE_ORIGINAL } from '../harness/vue-app.ts'
import { waitFor } from '../harness/wait.ts'

const url = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(url, token)

const eventSchema = z.looseObject({
  issue_id: z.number(),
  exception: z.object({
    values: z.array(
      z.looseObject({
        type: z.string(),
        mechanism: z.looseObject({ type: z.string(), handled: z.boolean().optional() }),
        stacktrace: z.object({ frames: z.array(frameSchema) }),
      }),
    ),
  }),
  contexts: z.looseObject({ vue: z.looseObject({ componentName: z.string() }) }),
})
type StoredVueEvent = z.infer<typeof eventSchema>

let browser: Browser
let project: Project
let out: string | undefined
/** The two events by their exception's type. */
const byType = new Map<string, StoredVueEvent>()

beforeAll(async () => {
  browser = await launchBrowser()
  project = await api.createProject('browser-vue')
  out = await buildVueApp()
  await uploadWithCli('sentry-cli-2', out, { url, token, org: 'default', project: project.slug })
  await throwInPage(browser, out, project.dsn)
  const ids = await waitFor(
    async () => {
      const all: string[] = []
      for (const i of await api.issues(project.id))
        for (const e of await api.issueEvents(i.id)) all.push(e.event_id)
      return all.length >= 2 ? all : undefined
    },
    { timeout: 10_000, message: 'both events are stored' },
  )
  for (const id of ids) {
    const event = eventSchema.parse(await api.event(project.id, id))
    byType.set(event.exception.values.at(-1)?.type ?? '', event)
  }
}, 180_000)
afterAll(async () => {
  await browser?.close()
  if (out !== undefined) await rm(dirname(out), { recursive: true, force: true })
})

describe('vue', () => {
  it("an error in a component's method: its SFC's lines, the Vue mechanism, scrubbed props", () => {
    const event = byType.get('RangeError')
    const exception = event?.exception.values.at(-1)
    expect(exception?.mechanism).toMatchObject({
      type: 'auto.function.vue.error_handler',
      handled: false,
    })
    expect(exception?.stacktrace.frames.at(-1)).toMatchObject({
      function: VUE_ORIGINAL.method.function,
      filename: VUE_ORIGINAL.method.file,
      lineno: VUE_ORIGINAL.method.line,
      context_line: VUE_ORIGINAL.method.contextLine,
    })
    expect(event?.contexts.vue).toMatchObject({
      componentName: '<CartPanel>',
      propsData: { owner: 'shop', password: '[Filtered]', items: 3 },
    })
  })

  it('an error in an onMounted hook: the function in its SFC, the component named', () => {
    const event = byType.get('SyntaxError')
    const frames = event?.exception.values.at(-1)?.stacktrace.frames ?? []
    // The newest frame is `JSON.parse` itself (no file); the one below it is the app's.
    expect(frames.find((f) => f.function === VUE_ORIGINAL.hook.function)).toMatchObject({
      filename: VUE_ORIGINAL.hook.file,
      lineno: VUE_ORIGINAL.hook.line,
      context_line: VUE_ORIGINAL.hook.contextLine,
    })
    expect(event?.contexts.vue).toMatchObject({
      componentName: '<BrokenWidget>',
      lifecycleHook: expect.any(String),
    })
  })

  it('each is its own issue titled by its error', async () => {
    const method = byType.get('RangeError')
    const hook = byType.get('SyntaxError')
    expect(method?.issue_id).not.toBe(hook?.issue_id)
    expect(await api.issue(method?.issue_id as number)).toMatchObject({
      title: 'RangeError: Coupon SAVE is too short',
      culprit: `${VUE_ORIGINAL.method.function}(${VUE_ORIGINAL.method.file.replace(/\.\w+$/, '')})`,
    })
  })
})
