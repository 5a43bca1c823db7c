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
import {
  issueSort,
  parseEventSearch,
  parseSearch,
  SORTS,
  withFilters,
} from '../http-kit/search-query.ts'
import { pathProject } from '../http-kit/validate.ts'
import { MAX_QUERY_LENGTH, type SearchQuery } from '../search/query.ts'
import type { Store } from '../store/types.ts'
import { IssueUpdate, toIssueChange } from '../triage/change.ts'
import { Cursor } from './cursor.ts'

/** Query of the issue list. */
export const IssueQuery = z
  .object({
    status: z.enum(['unresolved', 'resolved', 'ignored']).optional(),
    query: z
      .string()
      .max(MAX_QUERY_LENGTH)
      .optional()
      .describe('search language (docs/search.md); a query that does not parse answers 400'),
    sort: z.enum(SORTS).optional().describe('last_seen (default), first_seen, times_seen, users'),
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
    query: z
      .string()
      .max(MAX_QUERY_LENGTH)
      .optional()
      .describe('search language over the events (docs/search.md): tags, has:, text, times'),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    cursor: Cursor.optional(),
  })
  .describe('query')

/**
 * The search of a parsed issue-list query: `query` in the search language with the separate
 * filters (status, for_review, environment, release, component) added as its terms.
 */
export function issueSearch(q: z.output<typeof IssueQuery>, now: number): SearchQuery {
  const { for_review, status, environment, release, component } = q
  return withFilters(parseSearch(q.query, now), {
    status,
    environment,
    release,
    component,
    forReview: for_review === undefined ? undefined : for_review === '1' || for_review === 'true',
  })
}

/** Top values per tag key on the tags route. */
const TOP_VALUES = 10

/** Body of `PUT /api/0/issues/{id}/` (triage/change.ts). */
export const UpdateIssue = IssueUpdate.describe('issue update')

const IssueParams = z.object({ issueId: PathId })

/** The tags route's answer. */
const TagsJson = z.object({
  users: z.number().int(),
  tags: z.array(
    z.object({
      key: z.string(),
      total: z.number().int(),
      distinct: z.number().int(),
      top: z.array(z.object({ value: z.string(), count: z.number().int() })),
    }),
  ),
})
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
          'Issues, last seen first (or by sort); query in the search language (400 with position and token when it does not parse), plus the filters status, for_review (1: the For review queue), environment, release, component; cursor paging (x-next-cursor)',
        params: ProjectParams,
        querystring: IssueQuery,
        response: { 200: z.array(IssueJson), ...errorResponses },
      },
    },
    async (req, reply) => {
      const projectId = (await pathProject(store, req.params.projectId)).id
      const q = req.query
      const page = await store.searchIssues(
        projectId,
        issueSearch(q, Date.now()),
        issueSort(q.sort),
        {
          limit: q.limit,
          cursor: q.cursor,
        },
      )
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
      // The project alone (no counter read: on PostgreSQL the triage's own read folds once).
      const projectId = await store.issueProjectId(req.params.issueId)
      if (projectId === undefined) throw new ApiError('not_found', 'no such issue')
      const change = toIssueChange(req.body, Date.now())
      const [updated] = await store.triageIssues(projectId, [req.params.issueId], change)
      return issueJson(updated ?? (await findIssue(req.params.issueId)))
    },
  )

  app.get(
    '/api/0/issues/:issueId/events/',
    {
      config: { access: onIssue('project:read') },
      schema: {
        summary:
          'Events of an issue, newest first; query in the search language (tags, has:, text, firstSeen/lastSeen on the receive time); cursor paging (x-next-cursor, also when a page stops after 10,000 events read)',
        params: IssueParams,
        querystring: PageQuery,
        response: { 200: z.array(EventJson), ...errorResponses },
      },
    },
    async (req, reply) => {
      const issue = await findIssue(req.params.issueId)
      const { query, limit, cursor } = req.query
      const search = parseEventSearch(query, Date.now())
      const page =
        search.terms.length === 0
          ? await store.listIssueEvents(issue.id, { limit, cursor })
          : await store.searchIssueEvents(issue.id, search, { limit, cursor })
      if (page.next !== undefined) reply.header('x-next-cursor', page.next)
      return page.events.map(eventJson)
    },
  )

  app.get(
    '/api/0/issues/:issueId/tags/',
    {
      config: { access: onIssue('project:read') },
      schema: {
        summary:
          "Tag distribution of an issue: per key (at most 100: the promoted keys, then those the most events carried), the events that carried it, its distinct values and the top 10 values with their counts; and the issue's distinct users",
        params: IssueParams,
        response: { 200: TagsJson, ...errorResponses },
      },
    },
    async (req) => {
      // Asked together, so on PostgreSQL both wait for one fold of the pending counters
      // (counter-deltas.ts), not one each; a missing issue has no tags and answers 404.
      const [issue, keys] = await Promise.all([
        findIssue(req.params.issueId),
        store.tagDistribution(req.params.issueId, TOP_VALUES),
      ])
      return {
        users: issue.users,
        tags: keys.map((k) => ({
          key: k.key,
          total: k.total,
          distinct: k.distinct,
          top: k.top,
        })),
      }
    },
  )

  app.get(
    '/api/0/projects/:projectId/events/:eventId/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary:
          'One stored event: the normalised payload, its tags with those derived from its fields (level, url, browser, user …) as its page lists them; the id with or without dashes',
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
