import { z } from 'zod'
import { UpdateIssue } from './issues.ts'
import { CreateProject } from './projects.ts'

const json = (schema: z.ZodType) => ({ 'application/json': { schema: z.toJSONSchema(schema) } })
const ok = (description: string) => ({ description, content: { 'application/json': {} } })
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
        get: { summary: 'One project', responses: { '200': ok('Project'), ...errors } },
      },
      '/api/0/projects/{projectId}/keys/': {
        get: {
          summary: 'DSN keys: [{id, label, public_key, dsn}]',
          responses: { '200': ok('Keys'), ...errors },
        },
      },
      '/api/0/projects/{projectId}/issues/': {
        get: {
          summary:
            'Issues, newest first; filters status, query, environment, release, component; cursor paging (x-next-cursor)',
          responses: {
            '200': ok('[{id, title, culprit, level, status, count, first_seen, last_seen}]'),
            ...errors,
          },
        },
      },
      '/api/0/issues/{issueId}/': {
        get: { summary: 'One issue', responses: { '200': ok('Issue'), ...errors } },
        put: {
          summary: 'Change the status of an issue',
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
      ...extraPaths,
    },
  }
}
