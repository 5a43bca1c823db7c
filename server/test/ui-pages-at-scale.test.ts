import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ISSUE_COUNT_CAP } from '../src/store/types.ts'
import { ADMIN, createProject, freezeDate, testApp } from './support/helpers.ts'
import { SCALE, writeScaleHistory } from './support/scale-data.ts'
import { createUser, signIn, type UiClient } from './support/ui-helpers.ts'

// The pages over a realistic-size history (50,000 events in 2,000 issues). The query plans of the
// same reads are checked in server/src/store/sqlite/page-reads.test.ts; this checks what renders.
const NOW = Date.UTC(2026, 5, 1, 12, 30)
const DAY = 86_400_000
freezeDate(NOW)

let app: FastifyInstance
let ui: UiClient
let projectId = 0
beforeAll(async () => {
  app = await testApp()
  await createUser(app)
  ui = await signIn(app)
  const p = await createProject(app, 'scale')
  projectId = p.id
  const key = (await app.services.store.listKeys(p.id))[0]
  if (key === undefined) throw new Error('no key')
  await writeScaleHistory(app.services.store, p.id, key.id, NOW)
  // Writing the history took 40–54 s on PostgreSQL on the shared 2-core machine under load.
}, 180_000)
afterAll(async () => {
  await app.close()
})

const rowsOf = (body: string) =>
  [...body.matchAll(/<a href="\/issues\/\d+">TypeError: scale issue (\d+)<\/a>/g)].map((m) =>
    Number(m[1]),
  )

async function page(url: string): Promise<string> {
  const res = await ui.get(url)
  expect(res.statusCode, url).toBe(200)
  return res.body
}

describe(`pages over ${SCALE.events} events in ${SCALE.issues} issues`, () => {
  it('renders the issue list with its counts, filter choices and filters', async () => {
    const list = await page(`/projects/${projectId}/issues`)
    expect(rowsOf(list)).toHaveLength(50)
    expect(list).toMatch(/Unresolved<span class="count">2,000<\/span>/)
    expect(list).toContain('<option value="staging">staging</option>')
    for (let r = 0; r < SCALE.releases; r++) expect(list).toContain(`<option value="app@${r}">`)

    const staging = await page(`/projects/${projectId}/issues?environment=staging`)
    expect(rowsOf(staging)).toHaveLength(50)
    expect(rowsOf(staging).every((n) => n % 10 === 0)).toBe(true)
    const release = await page(`/projects/${projectId}/issues/fragment?release=app@7&tab=review`)
    expect(rowsOf(release)).toHaveLength(50)
    expect(rowsOf(release).every((n) => n % SCALE.releases === 7)).toBe(true)
    const none = await page(`/projects/${projectId}/issues?environment=nowhere&query=scale`)
    expect(none).toContain('No issues match.')
  })

  it('shows a tab count past the cap as 10,000+', async () => {
    const p = await createProject(app, 'many')
    const key = (await app.services.store.listKeys(p.id))[0]
    if (key === undefined) throw new Error('no key')
    const events = Array.from({ length: ISSUE_COUNT_CAP + 1 }, (_, n) => ({
      projectId: p.id,
      keyId: key.id,
      eventId: `d${n.toString(16).padStart(31, '0')}`,
      timestamp: NOW,
      received: NOW,
      level: 'error',
      title: `many ${n}`,
      culprit: '',
      type: null,
      value: null,
      release: null,
      environment: null,
      component: null,
      hash: `many-${n}`,
      groupingVersion: 'test',
      payload: '{}',
    }))
    await app.services.store.write([{ events, outcomes: [] }])
    const list = await page(`/projects/${p.id}/issues`)
    expect(list).toMatch(/For review<span class="count">10,000\+<\/span>/)
    expect(list).toMatch(/Unresolved<span class="count">10,000\+<\/span>/)
    expect(list).toMatch(/Resolved<span class="count">0<\/span>/)
  })

  it('answers the API list with the same filters', async () => {
    const res = await app.inject({
      method: 'GET',
      url: `/api/0/projects/${projectId}/issues/?environment=staging&limit=1000`,
      headers: ADMIN,
    })
    expect(res.statusCode).toBe(200)
    expect(res.json<unknown[]>()).toHaveLength(SCALE.issues / 10)
  })

  it('renders an issue page: its chart counts the issue events, stepping works', async () => {
    const issueId = /<a href="\/issues\/(\d+)">/.exec(
      await page(`/projects/${projectId}/issues`),
    )?.[1]
    const events = await app.inject({
      method: 'GET',
      url: `/api/0/issues/${issueId}/events/?limit=100`,
      headers: ADMIN,
    })
    expect(events.statusCode).toBe(200)
    const ids = events.json<{ eventID?: string; event_id?: string; id?: string }[]>()
    expect(ids).toHaveLength(SCALE.events / SCALE.issues)

    const issue = await app.services.store.listIssueEvents(Number(issueId), { limit: 100 })
    const since = Math.floor(NOW / DAY) * DAY - 13 * DAY
    const inWindow = issue.events.filter((e) => e.received >= since).length
    const detail = await page(`/issues/${issueId}?period=14d`)
    const bars = [...detail.matchAll(/<rect class="bar"[^>]*><title>[^<]*: ([\d,]+) /g)]
    const charted = bars.reduce((sum, m) => sum + Number((m[1] ?? '0').replaceAll(',', '')), 0)
    expect(inWindow).toBeGreaterThan(0)
    expect(charted).toBe(inWindow)

    const middle = issue.events[10]?.eventId ?? ''
    const stepped = await page(`/issues/${issueId}?event=${middle}`)
    expect(stepped).toContain(`?event=${issue.events[11]?.eventId}&period=14d">‹ Older`)
    expect(stepped).toContain(`?event=${issue.events[9]?.eventId}&period=14d">Newer ›`)
  })
})
