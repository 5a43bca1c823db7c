import { z } from 'zod'
import { notFound } from '../errors.ts'
import { onOrg } from '../http/route-access.ts'
import { eventJson } from '../http-kit/format.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { ErrorBody, EventJson, errorResponses } from '../http-kit/schemas.ts'
import { teamProject } from '../http-kit/validate.ts'
import type { Store } from '../store/types.ts'

const Params = z.object({
  org: z.string().min(1).max(100),
  project: z.string().min(1).max(100),
  eventId: z.string().max(64),
})

/**
 * Sentry's `GET /api/0/projects/{org}/{project}/events/{event_id}/json/`, which
 * `sentry-cli sourcemaps explain` (2.x) reads to tell why an event's frames are not mapped:
 * the stored event as `/api/0/projects/:projectId/events/:eventId/` answers it, addressed by
 * the team's and project's slugs as the CLI knows them, with the same `project:read` access.
 */
export async function eventJsonRoutes(app: ApiScope, deps: { store: Store }): Promise<void> {
  const { store } = deps
  app.get(
    '/api/0/projects/:org/:project/events/:eventId/json/',
    {
      config: { access: onOrg('project:read') },
      schema: {
        summary:
          'One stored event by the team and project slugs (`sentry-cli sourcemaps explain`); the id with or without dashes',
        params: Params,
        response: { 200: EventJson, ...errorResponses, 404: ErrorBody.describe('No such event') },
      },
    },
    async (req) => {
      const teamId = req.accessTeamId
      if (teamId === undefined) throw notFound('organization')
      const project = await teamProject(store, teamId, req.params.project)
      const eventId = req.params.eventId.replaceAll('-', '').toLowerCase()
      const e = await store.getEvent(project.id, eventId)
      if (e === undefined) throw notFound('event')
      return eventJson(e)
    },
  )
}
