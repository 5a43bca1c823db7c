import { z } from 'zod'
import { UpdateIssue } from './issues.ts'
import { healthAndCronPaths } from './openapi-health-crons.ts'
import { bulkIssueUpdate, createComponentKey, triageAlertPaths } from './openapi-triage-alerts.ts'
import { OutcomeQuery } from './outcomes.ts'
import { CreateProject } from './projects.ts'
import { UpdateProject } from './quotas.ts'

const json = (schema: z.ZodType) => ({ 'application/json': { schema: z.toJSONSchema(schema) } })
const ok = (description: string) => ({ description, content: { 'application/json': {} } })
/** Query parameters documented from the zod object the route parses them with. */
const queryParameters = (schema: z.ZodObject) =>
  Object.keys(schema.shape).map((name) => ({ name, in: 'query', schema: { type: 'string' } }))
const errors = {
  '400': { description: 'Invalid input; body `{"detail": "..."}`' },
  '401': { description: 'Missing or wrong token; body `{"detail": "..."}`' },
  '404': { description: 'No such resource' },
}

/**
 * The OpenAPI 3.1 description of the management API, served at `/api/0/openapi.json`.
 * Request bodies come from the same zod schemas the routes validate with, so they cannot drift.
 */
export function openApiDocument(extraPaths: Record<string, unknown> = {}) {
  return {
    openapi: '3.1.0',
    info: { title: 'Error-ingest management API', version: '0' },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
    },
    security: [{ bearer: [] }],
    paths: {
      '/api/0/projects/': {
        get: { summary: 'List projects', responses: { '200': ok('Projects'), ...errors } },
        post: {
          summary: 'Create a project with a default DSN key',
          requestBody: { content: json(CreateProject) },
          responses: { '201': ok('{id, slug, name, dsn}'), ...errors },
        },
      },
      '/api/0/projects/{projectId}/': {
        get: {
          summary: 'One project, with its event quota (`quota`: {events, window_seconds} or null)',
          responses: { '200': ok('Project'), ...errors },
        },
        put: {
          summary: 'Change project settings: `quota` {events, window_seconds}, null = no quota',
          requestBody: { content: json(UpdateProject) },
          responses: { '200': ok('Project'), ...errors },
        },
      },
      '/api/0/projects/{projectId}/outcomes/': {
        get: {
          summary:
            'Outcome totals by outcome, reason and category over [since, until) (whole hours, default the last 24 h); filters key_id, component, category',
          parameters: queryParameters(OutcomeQuery),
          responses: {
            '200': ok(
              '{since, until, totals: [{outcome, reason, category, quantity, label, description}]}',
            ),
            ...errors,
          },
        },
      },
      '/api/0/projects/{projectId}/outcomes/series/': {
        get: {
          summary: 'Hourly outcome buckets for a chart (at most 93 days); same filters',
          parameters: queryParameters(OutcomeQuery),
          responses: {
            '200': ok(
              '{since, until, interval: "1h", buckets: [{start, outcomes: {accepted, …}}]}',
            ),
            ...errors,
          },
        },
      },
      '/api/0/projects/{projectId}/keys/': {
        get: {
          summary: 'DSN keys: [{id, label, public_key, dsn}]',
          responses: { '200': ok('Keys'), ...errors },
        },
        post: createComponentKey,
      },
      '/api/0/projects/{projectId}/issues/': {
        get: {
          summary:
            'Issues, newest first; filters status, for_review (1: the For review queue), query, environment, release, component; cursor paging (x-next-cursor)',
          responses: {
            '200': ok(
              '[{id, title, culprit, level, status, for_review, ignore_until, ignore_count, count, first_seen, last_seen}]',
            ),
            ...errors,
          },
        },
        put: bulkIssueUpdate,
      },
      '/api/0/issues/{issueId}/': {
        get: { summary: 'One issue', responses: { '200': ok('Issue'), ...errors } },
        put: {
          summary:
            'Triage an issue: status, ignore conditions (ignore_until | ignore_duration minutes, ignore_count), reviewed',
          requestBody: { content: json(UpdateIssue) },
          responses: { '200': ok('Issue'), ...errors },
        },
      },
      '/api/0/issues/{issueId}/events/': {
        get: {
          summary: 'Events of an issue, newest first',
          responses: { '200': ok('Events'), ...errors },
        },
      },
      '/api/0/projects/{projectId}/events/{eventId}/': {
        get: {
          summary: 'One stored event (normalised payload)',
          responses: { '200': ok('Event'), ...errors },
        },
      },
      ...healthAndCronPaths,
      ...triageAlertPaths,
      ...extraPaths,
    },
  }
}
