/**
 * `source-maps`: a minified app with the row's stock browser SDK, its maps uploaded to the
 * target by stock sentry-cli with the target's token (`--org` the slug of the team owning the
 * cell's project, `--project` its slug), throws in headless Chromium; the stored event's frames
 * are the original function names, file, lines and source context, and the minified frames are
 * kept as the raw stack trace.
 */
import { z } from 'zod'
import { frameSchema } from '../../harness/api.ts'
import { type Browser, launchBrowser } from '../../harness/browser.ts'
import {
  buildMinifiedApp,
  ORIGINAL,
  type SentryCli,
  throwInPage,
  uploadWithCli,
} from '../../harness/source-maps-app.ts'
import { waitFor } from '../../harness/wait.ts'
import type { Scenario } from './scenario.ts'

/**
 * The CLI each browser row's users pair it with: the SDK 11 generation with sentry-cli 3, the
 * SDK 10 one with sentry-cli 2 (both CLI majors are in use; each row checks one).
 */
const CLI_OF_SDK: Record<string, SentryCli> = {
  '@sentry/browser': 'sentry-cli-3',
  'sentry-browser-10': 'sentry-cli-2',
}

const eventSchema = z.looseObject({
  exception: z.object({
    values: z.array(
      z.looseObject({
        stacktrace: z.object({ frames: z.array(frameSchema) }),
        raw_stacktrace: z.object({ frames: z.array(frameSchema) }).optional(),
      }),
    ),
  }),
})

export const sourceMaps: Scenario = {
  id: 'source-maps',
  async run(ctx) {
    const sdk = ctx.row.sdk ?? '@sentry/browser'
    const cli = CLI_OF_SDK[sdk]
    if (cli === undefined) throw new Error(`no sentry-cli is paired with the SDK ${sdk}`)
    const project = await ctx.createProject('source maps')
    ctx.track(project)
    const teamId = z.object({ team_id: z.number() }).parse(project).team_id
    const org = (await ctx.api.teams()).find((t) => t.id === teamId)?.slug
    if (org === undefined) throw new Error(`the token does not see team ${teamId}`)

    const out = await buildMinifiedApp(sdk, 3)
    const upload = ctx.note(
      'upload',
      await uploadWithCli(cli, out, {
        url: ctx.target.url,
        token: ctx.target.token,
        org,
        project: project.slug,
      }),
    )
    let browser: Browser | undefined
    try {
      browser = await launchBrowser()
      await throwInPage(browser, out, project.dsn)
    } finally {
      await browser?.close()
    }

    const event = await waitFor(
      async () => {
        for (const issue of await ctx.api.issues(project.id)) {
          for (const e of await ctx.api.issueEvents(issue.id)) {
            const stored = await ctx.api.event(project.id, e.event_id)
            if (stored !== undefined) return eventSchema.parse(stored)
          }
        }
        return undefined
      },
      { timeout: ctx.readBackMs, message: 'the error event is stored' },
    )
    const value = event.exception.values.at(-1)
    const frames = ctx.note('frames', value?.stacktrace.frames ?? [])
    ctx.expect(frames.at(-1)).toMatchObject({
      function: ORIGINAL.thrower.function,
      filename: ORIGINAL.file,
      lineno: ORIGINAL.thrower.line,
      context_line: ORIGINAL.contextLine,
      data: { symbolicated: true },
    })
    ctx.expect(frames.at(-2)).toMatchObject({
      function: ORIGINAL.caller.function,
      filename: ORIGINAL.file,
      lineno: ORIGINAL.caller.line,
    })
    // The frames as the SDK sent them: the minified file and names, kept beside.
    const raw = value?.raw_stacktrace?.frames ?? []
    ctx.expect(raw.length).toBe(frames.length)
    ctx.expect(raw.at(-1)?.filename).toMatch(/app\.min\.js$/)
    ctx.expect(raw.at(-1)?.function).not.toBe(ORIGINAL.thrower.function)
    ctx.say(`maps uploaded by stock ${upload.cli} (debug ID ${upload.debugId})`)
  },
}
