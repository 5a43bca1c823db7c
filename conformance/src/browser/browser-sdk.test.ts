/**
 * The stock browser SDK (@sentry/browser 11, and 10 under the `sentry-browser-10` alias) in
 * headless Chromium, posting cross-origin from a page on `localhost` to the server on
 * `127.0.0.1`: its events land and group, and an uncaught error's session reaches release
 * health as `unhandled` (v11) or `crashed` (v10).
 */
import { describe, expect, inject, it } from 'vitest'
import { z } from 'zod'
import { Api } from '../harness/api.ts'
import { loadDriver, runDriver } from '../harness/drivers.ts'
import { waitFor } from '../harness/wait.ts'
import { checkGrouping } from '../sdk/grouping.ts'

const url = inject('serverUrl')
const token = inject('adminToken')
const api = new Api(url, token)
const driver = loadDriver('browser')

const releaseSchema = z.array(
  z.looseObject({
    version: z.string(),
    environments: z.array(z.string().nullable()),
    health: z.looseObject({
      sessions: z.number(),
      sessions_unhandled: z.number(),
      sessions_crashed: z.number(),
      crash_free_sessions: z.number().nullable(),
    }),
  }),
)

async function releases(projectId: number) {
  const res = await fetch(`${url}/api/0/projects/${projectId}/releases/`, {
    headers: { authorization: `Bearer ${token}` },
  })
  expect(res.status).toBe(200)
  return releaseSchema.parse(await res.json())
}

describe.each(driver.sdks)('%s in Chromium', (sdk) => {
  if (driver.missing !== undefined) {
    it.skip(`browser driver unavailable: ${driver.missing}`, () => {})
    return
  }

  it('grouping: one exception issue and one message issue, two events each', async ({ expect }) => {
    await checkGrouping(expect, api, driver, sdk, { exceptionTitle: 'Error: conformance boom' })
  })

  it('an uncaught error lands as an issue and its session reaches release health', async () => {
    const project = await api.createProject(`browser-${sdk}-crash`)
    const report = await runDriver(driver, { scenario: 'crash', dsn: project.dsn, sdk })
    const [eventId] = report.groups['uncaught'] ?? []
    expect(eventId).toBeDefined()
    const event = await waitFor(() => api.event(project.id, eventId ?? ''), {
      timeout: 10_000,
      message: 'the uncaught error is stored',
    })
    const issue = await api.issue(event.issue_id)
    expect(issue.title).toBe('Error: conformance uncaught')
    expect(event['exception']).toMatchObject({
      values: [{ mechanism: { handled: false } }],
    })

    const status = report.sdk.version.startsWith('10.') ? 'sessions_crashed' : 'sessions_unhandled'
    const [release] = await waitFor(
      async () => {
        const list = await releases(project.id)
        return list[0] !== undefined && list[0].health[status] >= 1 ? list : undefined
      },
      { timeout: 10_000, message: `a ${status} session for the release` },
    )
    expect(release?.version).toBe('conformance@1.0.0')
    expect(release?.environments).toEqual(['test'])
    expect(release?.health.sessions).toBe(1)
    if (status === 'sessions_crashed') expect(release?.health.crash_free_sessions).toBe(0)
  })
})
