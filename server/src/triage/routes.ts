import type { FastifyInstance } from 'fastify'
import { issueJson } from '../api/format.ts'
import { parseInput, pathId } from '../api/validate.ts'
import { ApiError } from '../errors.ts'
import { BulkIssueUpdate, toIssueChange } from './change.ts'

/**
 * Bulk triage: `PUT /api/0/projects/{id}/issues/` with `{ids: [...], status?, …}` applies one
 * change to many issues. Ids of other projects or of no issue are skipped; the answer lists the
 * issues that were changed.
 */
export async function triageRoutes(app: FastifyInstance): Promise<void> {
  const { store } = app.services
  app.put('/api/0/projects/:projectId/issues/', async (req) => {
    const projectId = pathId(req.params, 'projectId')
    if ((await store.getProject(projectId)) === undefined)
      throw new ApiError('not_found', 'no such project')
    const { ids, ...update } = parseInput(BulkIssueUpdate, req.body, 'bulk issue update')
    const updated = await store.triageIssues(projectId, ids, toIssueChange(update, Date.now()))
    return updated.map(issueJson)
  })
}
