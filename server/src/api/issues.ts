import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { ApiError } from '../errors.ts'
import type { Store } from '../store/types.ts'
import { eventJson, issueJson } from './format.ts'
import { parseInput, pathId } from './validate.ts'

/** Query of the issue list. */
export const IssueQuery = z.object({
  status: z.enum(['unresolved', 'resolved', 'ignored']).optional(),
  query: z.string().max(200).optional(),
  environment: z.string().max(256).optional(),
  release: z.string().max(256).optional(),
  component: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(64).optional(),
})

const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  cursor: z.string().max(64).optional(),
})

/** Body of `PUT /api/0/issues/{id}/`. */
export const UpdateIssue = z.object({ status: z.enum(['unresolved', 'resolved', 'ignored']) })

/** Issue and event read routes of the management API. */
export async function issueRoutes(app: FastifyInstance, deps: { store: Store }): Promise<void> {
  const { store } = deps
  const findIssue = async (params: unknown) => {
    const issue = await store.getIssue(pathId(params, 'issueId'))
    if (issue === undefined) throw new ApiError('not_found', 'no such issue')
    return issue
  }

  app.get('/api/0/projects/:projectId/issues/', async (req, reply) => {
    const projectId = pathId(req.params, 'projectId')
    if ((await store.getProject(projectId)) === undefined)
      throw new ApiError('not_found', 'no such project')
    const q = parseInput(IssueQuery, req.query, 'query')
    const { limit, cursor, ...filter } = q
    const page = await store.listIssues(projectId, filter, { limit, cursor })
    if (page.next !== undefined) reply.header('x-next-cursor', page.next)
    return page.issues.map(issueJson)
  })

  app.get('/api/0/issues/:issueId/', async (req) => issueJson(await findIssue(req.params)))

  app.put('/api/0/issues/:issueId/', async (req) => {
    const issue = await findIssue(req.params)
    const { status } = parseInput(UpdateIssue, req.body, 'issue update')
    await store.setIssueStatus(issue.id, status)
    return issueJson({ ...issue, status })
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
