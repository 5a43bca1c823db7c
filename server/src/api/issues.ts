import { z } from 'zod'
import { ApiError } from '../errors.ts'
import { onIssue, onProject } from '../http/route-access.ts'
import { eventJson, issueJson } from '../http-kit/format.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import {
  bodyErrorResponses,
  ErrorBody,
  EventJson,
  errorResponses,
  IssueJson,
  PathId,
  ProjectParams,
} from '../http-kit/schemas.ts'
import { pathProject } from '../http-kit/validate.ts'
import type { IssueFilter, Store } from '../store/types.ts'
import { IssueUpdate, toIssueChange } from '../triage/change.ts'
import { Cursor } from './cursor.ts'

/** Query of the issue list. */
export const IssueQuery = z
  .object({
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
  .describe('query')

const PageQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: Cursor.optional(),
  })
  .describe('query')

/** The store filter of a parsed issue-list query (the API's and the web UI's). */
export function issueFilter(q: z.output<typeof IssueQuery>): IssueFilter {
  const { limit: _limit, cursor: _cursor, for_review, ...rest } = q
  return for_review === undefined
    ? rest
    : { ...rest, forReview: for_review === '1' || for_review === 'true' }
}

/** Body of `PUT /api/0/issues/{id}/` (triage/change.ts). */
export const UpdateIssue = IssueUpdate.describe('issue update')

const IssueParams = z.object({ issueId: PathId })
const EventParams = z.object({ projectId: PathId, eventId: z.string().max(64) })

/** Issue and event read routes of the management API. */
export async function issueRoutes(app: ApiScope, deps: { store: Store }): Promise<void> {
  const { store } = deps
  const findIssue = async (issueId: number) => {
    const issue = await store.getIssue(issueId)
    if (issue === undefined) throw new ApiError('not_found', 'no such issue')
    return issue
  }

  app.get(
    '/api/0/projects/:projectId/issues/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary:
          'Issues, newest first; filters status, for_review (1: the For review queue), query, environment, release, component; cursor paging (x-next-cursor)',
        params: ProjectParams,
        querystring: IssueQuery,
        response: { 200: z.array(IssueJson), ...errorResponses },
      },
    },
    async (req, reply) => {
      const projectId = (await pathProject(store, req.params.projectId)).id
      const q = req.query
      const page = await store.listIssues(projectId, issueFilter(q), {
        limit: q.limit,
        cursor: q.cursor,
      })
      if (page.next !== undefined) reply.header('x-next-cursor', page.next)
      return page.issues.map(issueJson)
    },
  )

  app.get(
    '/api/0/issues/:issueId/',
    {
      config: { access: onIssue('project:read') },
      schema: {
        summary: 'One issue',
        params: IssueParams,
        response: { 200: IssueJson, ...errorResponses },
      },
    },
    async (req) => issueJson(await findIssue(req.params.issueId)),
  )

  app.put(
    '/api/0/issues/:issueId/',
    {
      config: { access: onIssue('project:triage') },
      schema: {
        summary:
          'Triage an issue: status, ignore conditions (ignore_until | ignore_duration minutes, ignore_count), reviewed',
        params: IssueParams,
        body: UpdateIssue,
        response: { 200: IssueJson, ...bodyErrorResponses },
      },
    },
    async (req) => {
      const issue = await findIssue(req.params.issueId)
      const change = toIssueChange(req.body, Date.now())
      const [updated] = await store.triageIssues(issue.projectId, [issue.id], change)
      return issueJson(updated ?? issue)
    },
  )

  app.get(
    '/api/0/issues/:issueId/events/',
    {
      config: { access: onIssue('project:read') },
      schema: {
        summary: 'Events of an issue, newest first; cursor paging (x-next-cursor)',
        params: IssueParams,
        querystring: PageQuery,
        response: { 200: z.array(EventJson), ...errorResponses },
      },
    },
    async (req, reply) => {
      const issue = await findIssue(req.params.issueId)
      const page = await store.listIssueEvents(issue.id, req.query)
      if (page.next !== undefined) reply.header('x-next-cursor', page.next)
      return page.events.map(eventJson)
    },
  )

  app.get(
    '/api/0/projects/:projectId/events/:eventId/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: 'One stored event (the normalised payload); the id with or without dashes',
        params: EventParams,
        response: { 200: EventJson, ...errorResponses, 404: ErrorBody.describe('No such event') },
      },
    },
    async (req) => {
      const eventId = req.params.eventId.replaceAll('-', '').toLowerCase()
      const e = await store.getEvent(req.params.projectId, eventId)
      if (e === undefined) throw new ApiError('not_found', 'no such event')
      return eventJson(e)
    },
  )
}
