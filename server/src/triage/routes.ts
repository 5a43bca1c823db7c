import { z } from 'zod'
import { ApiError } from '../errors.ts'
import { onProject } from '../http/route-access.ts'
import { issueJson } from '../http-kit/format.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { bodyErrorResponses, IssueJson, ProjectParams } from '../http-kit/schemas.ts'
import type { Store } from '../store/types.ts'
import { BulkIssueUpdate, toIssueChange } from './change.ts'

/**
 * Bulk triage: `PUT /api/0/projects/{id}/issues/` with `{ids: [...], status?, …}` applies one
 * change to many issues. Ids of other projects or of no issue are skipped; the answer lists the
 * issues that were changed.
 */
export async function triageRoutes(app: ApiScope, deps: { store: Store }): Promise<void> {
  const { store } = deps
  app.put(
    '/api/0/projects/:projectId/issues/',
    {
      config: { access: onProject('project:triage') },
      schema: {
        summary:
          'Bulk triage: apply {status?, ignore_until?, ignore_duration?, ignore_count?, reviewed?} to `ids`; ids of other projects are skipped; answers the changed issues',
        params: ProjectParams,
        body: BulkIssueUpdate.describe('bulk issue update'),
        response: { 200: z.array(IssueJson), ...bodyErrorResponses },
      },
    },
    async (req) => {
      const { projectId } = req.params
      if ((await store.getProject(projectId)) === undefined)
        throw new ApiError('not_found', 'no such project')
      const { ids, ...update } = req.body
      const updated = await store.triageIssues(projectId, ids, toIssueChange(update, Date.now()))
      return updated.map(issueJson)
    },
  )
}
