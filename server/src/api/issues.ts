import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { ApiError } from '../errors.ts'
import type { IssueFilter, Store } from '../store/types.ts'
import { IssueUpdate, toIssueChange } from '../triage/change.ts'
import { Cursor } from './cursor.ts'
import { eventJson, issueJson } from './format.ts'
import { parseInput, pathId, pathProject } from './validate.ts'

/** Query of the issue list. */
export const IssueQuery = z.object({
  status: z.enum(['unresolved', 'resolved', 'ignored']).optional(),
  query: z.string().max(200).optional(),
  environment: z.string().max(256).optional(),
  release: z.string().max(256).optional(),
  component: z.string().max(64).optional(),
  /** `1`: the For review queue (unresolved, not yet triaged); `0`: the rest. */
  for_review: z.enum(['1', '0', 'true', 'false']).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: Cursor.optional(),
})

const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: Cursor.optional(),
})

/** The store filter of a parsed issue-list query (the API's and the web UI's). */
export function issueFilter(q: z.output<typeof IssueQuery>): IssueFilter {
  const { limit: _limit, cursor: _cursor, for_review, ...rest } = q
  return for_review === undefined
    ? rest
    : { ...rest, forReview: for_review === '1' || for_review === 'true' }
}

/** Body of `PUT /api/0/issues/{id}/` (triage/change.ts). */
export const UpdateIssue = IssueUpdate

/** Issue and event read routes of the management API. */
export async function issueRoutes(app: FastifyInstance, deps: { store: Store }): Promise<void> {
  const { store } = deps
  const findIssue = async (params: unknown) => {
    const issue = await store.getIssue(pathId(params, 'issueId'))
    if (issue === undefined) throw new ApiError('not_found', 'no such issue')
    return issue
  }

  app.get('/api/0/projects/:projectId/issues/', async (req, reply) => {
    const projectId = (await pathProject(store, req.params)).id
    const q = parseInput(IssueQuery, req.query, 'query')
    const page = await store.listIssues(projectId, issueFilter(q), {
      limit: q.limit,
      cursor: q.cursor,
    })
    if (page.next !== undefined) reply.header('x-next-cursor', page.next)
    return page.issues.map(issueJson)
  })

  app.get('/api/0/issues/:issueId/', async (req) => issueJson(await findIssue(req.params)))

  app.put('/api/0/issues/:issueId/', async (req) => {
    const issue = await findIssue(req.params)
    const change = toIssueChange(parseInput(UpdateIssue, req.body, 'issue update'), Date.now())
    const [updated] = await store.triageIssues(issue.projectId, [issue.id], change)
    return issueJson(updated ?? issue)
  })

  app.get('/api/0/issues/:issueId/events/', async (req, reply) => {
    const issue = await findIssue(req.params)
    const { limit, cursor } = parseInput(PageQuery, req.query, 'query')
    const page = await store.listIssueEvents(issue.id, { limit, cursor })
    if (page.next !== undefined) reply.header('x-next-cursor', page.next)
    return page.events.map(eventJson)
  })

  app.get('/api/0/projects/:projectId/events/:eventId/', async (req) => {
    const projectId = pathId(req.params, 'projectId')
    const raw = (req.params as { eventId?: string }).eventId ?? ''
    const eventId = raw.replaceAll('-', '').toLowerCase()
    const e = await store.getEvent(projectId, eventId)
    if (e === undefined) throw new ApiError('not_found', 'no such event')
    return eventJson(e)
  })
}
