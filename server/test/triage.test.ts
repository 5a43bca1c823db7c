import type { FastifyInstance } from 'fastify'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { StoredEventNotice } from '../src/alerts/triggers.ts'
import { createProject, type TestProject, testApp } from './support/helpers.ts'
import { call, getIssue, type IssueBody, listIssues, sendEvent } from './support/triage-helpers.ts'

let app: FastifyInstance
let p: TestProject
let notices: StoredEventNotice[]

beforeEach(async () => {
  app = await testApp()
  p = await createProject(app)
  notices = []
  app.services.bus.on('event.stored', (n) => notices.push(n))
})

afterEach(async () => {
  await app.close()
})

/** Sends a message and returns its issue. */
async function issueFor(message: string): Promise<IssueBody> {
  await sendEvent(app, p.id, p.key, message)
  const found = (await listIssues(app, p.id)).find((i) => i.title === message)
  if (found === undefined) throw new Error(`no issue titled ${message}`)
  return found
}

const put = (id: number, body: unknown) => call(app, 'PUT', `/api/0/issues/${id}/`, body)
const ids = (issues: IssueBody[]) => issues.map((i) => i.id).sort((a, b) => a - b)

describe('the For review queue', () => {
  it('holds a new issue until it is marked reviewed; reviewed stays unresolved', async () => {
    const issue = await issueFor('first sighting')
    expect(issue).toMatchObject({ status: 'unresolved', for_review: true })
    expect(ids(await listIssues(app, p.id, '?for_review=1'))).toEqual([issue.id])

    const res = await put(issue.id, { reviewed: true })
    expect(res.statusCode).toBe(200)
    expect(res.json()).toMatchObject({ status: 'unresolved', for_review: false })
    expect(await listIssues(app, p.id, '?for_review=1')).toEqual([])
    expect(ids(await listIssues(app, p.id, '?status=unresolved'))).toEqual([issue.id])

    // Further events of a reviewed, unresolved issue do not bring it back.
    await sendEvent(app, p.id, p.key, 'first sighting')
    expect(await getIssue(app, issue.id)).toMatchObject({ count: 2, for_review: false })

    // reviewed:false puts it back by hand.
    expect((await put(issue.id, { reviewed: false })).json()).toMatchObject({ for_review: true })
  })

  it('a resolved issue that gets a new event regresses: unresolved and For review again', async () => {
    const issue = await issueFor('comes back')
    const resolved = await put(issue.id, { status: 'resolved' })
    expect(resolved.json()).toMatchObject({ status: 'resolved', for_review: false })
    expect(await listIssues(app, p.id, '?for_review=1')).toEqual([])

    notices.length = 0
    await sendEvent(app, p.id, p.key, 'comes back')
    expect(await getIssue(app, issue.id)).toMatchObject({
      status: 'unresolved',
      for_review: true,
      count: 2,
    })
    expect(notices).toEqual([expect.objectContaining({ issueId: issue.id, regressed: true })])
    expect(ids(await listIssues(app, p.id, '?for_review=1'))).toEqual([issue.id])
  })

  it('reopening a resolved issue by hand keeps it out of For review', async () => {
    const issue = await issueFor('reopened by hand')
    await put(issue.id, { status: 'resolved' })
    const res = await put(issue.id, { status: 'unresolved' })
    expect(res.json()).toMatchObject({ status: 'unresolved', for_review: false })
  })
})

describe('ignoring', () => {
  it('until it happens N more times: the Nth new event brings it back for review', async () => {
    const issue = await issueFor('noisy')
    const res = await put(issue.id, { status: 'ignored', ignore_count: 2 })
    expect(res.json()).toMatchObject({ status: 'ignored', for_review: false, ignore_count: 2 })

    await sendEvent(app, p.id, p.key, 'noisy')
    expect(await getIssue(app, issue.id)).toMatchObject({ status: 'ignored', ignore_count: 1 })
    expect(await listIssues(app, p.id, '?for_review=1')).toEqual([])

    await sendEvent(app, p.id, p.key, 'noisy')
    expect(await getIssue(app, issue.id)).toMatchObject({
      status: 'unresolved',
      for_review: true,
      ignore_count: null,
      count: 3,
    })
    // Coming back from ignore is not a regression.
    expect(notices.at(-1)).toMatchObject({ regressed: false })
  })

  it('for a time: an event after the time brings it back; before it, it stays ignored', async () => {
    const a = await issueFor('ignored briefly')
    const b = await issueFor('ignored for long')
    const now = Date.now()
    // The API refuses past times, so set an already-elapsed ignore through the store.
    await app.services.store.triageIssues(p.id, [a.id], {
      status: 'ignored',
      ignoreUntil: now - 1,
    })
    const long = await put(b.id, { status: 'ignored', ignore_duration: 60 })
    const until = Date.parse(long.json<IssueBody>().ignore_until ?? '')
    expect(until - now).toBeGreaterThanOrEqual(60 * 60_000 - 1000)
    expect(until - now).toBeLessThanOrEqual(60 * 60_000 + 5000)

    await sendEvent(app, p.id, p.key, 'ignored briefly')
    await sendEvent(app, p.id, p.key, 'ignored for long')
    expect(await getIssue(app, a.id)).toMatchObject({ status: 'unresolved', for_review: true })
    expect(await getIssue(app, b.id)).toMatchObject({ status: 'ignored', for_review: false })
  })

  it('the expiry sweep ends a time-limited ignore without any new event', async () => {
    const issue = await issueFor('quiet')
    const until = new Date(Date.now() + 10 * 60_000).toISOString()
    expect((await put(issue.id, { status: 'ignored', ignore_until: until })).json()).toMatchObject({
      status: 'ignored',
      ignore_until: until,
    })
    expect(await app.services.store.expireIgnores(Date.now())).toBe(0)
    expect(ids(await listIssues(app, p.id, '?status=ignored'))).toEqual([issue.id])

    expect(await app.services.store.expireIgnores(Date.now() + 11 * 60_000)).toBe(1)
    expect(await getIssue(app, issue.id)).toMatchObject({
      status: 'unresolved',
      for_review: true,
      ignore_until: null,
    })
    expect(await listIssues(app, p.id, '?status=ignored')).toEqual([])
  })

  it('ignoring forever (no condition) holds through new events', async () => {
    const issue = await issueFor('muted')
    await put(issue.id, { status: 'ignored' })
    await sendEvent(app, p.id, p.key, 'muted')
    await sendEvent(app, p.id, p.key, 'muted')
    expect(await getIssue(app, issue.id)).toMatchObject({ status: 'ignored', count: 3 })
  })
})

describe('list tabs and bulk actions', () => {
  it('For review, Unresolved, Resolved and Ignored filter the list', async () => {
    const [a, b, c, d] = [
      await issueFor('tab a'),
      await issueFor('tab b'),
      await issueFor('tab c'),
      await issueFor('tab d'),
    ] as [IssueBody, IssueBody, IssueBody, IssueBody]
    await put(b.id, { reviewed: true })
    await put(c.id, { status: 'resolved' })
    await put(d.id, { status: 'ignored' })
    expect(ids(await listIssues(app, p.id, '?for_review=1'))).toEqual([a.id])
    expect(ids(await listIssues(app, p.id, '?for_review=true&status=unresolved'))).toEqual([a.id])
    expect(ids(await listIssues(app, p.id, '?status=unresolved'))).toEqual([a.id, b.id])
    expect(ids(await listIssues(app, p.id, '?status=resolved'))).toEqual([c.id])
    expect(ids(await listIssues(app, p.id, '?status=ignored'))).toEqual([d.id])
    expect(await app.services.store.countForReview(p.id)).toBe(1)
  })

  it('bulk PUT applies one change to many issues and skips ids of other projects', async () => {
    const a = await issueFor('bulk a')
    const b = await issueFor('bulk b')
    const other = await createProject(app, 'other')
    await sendEvent(app, other.id, other.key, 'elsewhere')
    const [foreign] = await listIssues(app, other.id)
    if (foreign === undefined) throw new Error('no foreign issue')

    const res = await call(app, 'PUT', `/api/0/projects/${p.id}/issues/`, {
      ids: [a.id, b.id, foreign.id, 999_999],
      status: 'resolved',
    })
    expect(res.statusCode).toBe(200)
    const updated = res.json<IssueBody[]>()
    expect(ids(updated)).toEqual([a.id, b.id])
    expect(updated.every((i) => i.status === 'resolved' && !i.for_review)).toBe(true)
    expect(await getIssue(app, foreign.id)).toMatchObject({ status: 'unresolved' })

    const ignored = await call(app, 'PUT', `/api/0/projects/${p.id}/issues/`, {
      ids: [a.id, b.id],
      status: 'ignored',
      ignore_count: 5,
    })
    expect(ignored.json<IssueBody[]>().map((i) => i.ignore_count)).toEqual([5, 5])
    const reviewed = await call(app, 'PUT', `/api/0/projects/${p.id}/issues/`, {
      ids: [a.id],
      status: 'unresolved',
      reviewed: true,
    })
    expect(reviewed.json()).toEqual([expect.objectContaining({ status: 'unresolved' })])
  })

  it('refuses meaningless or malformed changes with 400 and a detail', async () => {
    const issue = await issueFor('validated')
    const cases: [unknown, RegExp][] = [
      [{}, /nothing to change/],
      [{ status: 'closed' }, /status/],
      [{ ignore_count: 3 }, /need "status": "ignored"/],
      [{ status: 'resolved', ignore_duration: 5 }, /need "status": "ignored"/],
      [{ status: 'ignored', ignore_until: '2000-01-01T00:00:00Z' }, /must be in the future/],
      [{ status: 'ignored', ignore_until: 'tomorrow' }, /ignore_until/],
      [{ status: 'ignored', ignore_until: '2999-01-01T00:00:00Z', ignore_duration: 5 }, /not both/],
      [{ status: 'ignored', ignore_count: 0 }, /ignore_count/],
      [{ reviewed: 'yes' }, /reviewed/],
      [{ status: 'resolved', resolvedIn: 'next' }, /resolvedIn/],
    ]
    for (const [body, detail] of cases) {
      const res = await put(issue.id, body)
      expect(res.statusCode, JSON.stringify(body)).toBe(400)
      expect(res.json<{ detail: string }>().detail).toMatch(detail)
    }
    const bulk = (body: unknown) => call(app, 'PUT', `/api/0/projects/${p.id}/issues/`, body)
    expect((await bulk({ ids: [], status: 'resolved' })).statusCode).toBe(400)
    expect((await bulk({ status: 'resolved' })).json<{ detail: string }>().detail).toMatch(/ids/)
    expect((await bulk({ ids: ['1'], status: 'resolved' })).statusCode).toBe(400)
    expect((await call(app, 'PUT', '/api/0/projects/9999/issues/', { ids: [1] })).statusCode).toBe(
      404,
    )
    expect((await put(987_654, { status: 'resolved' })).statusCode).toBe(404)
    // Nothing above changed the issue.
    expect(await getIssue(app, issue.id)).toMatchObject({ status: 'unresolved', for_review: true })
  })
})
