/** Helpers shared by the triage, alert and component tests. */
import { randomUUID } from 'node:crypto'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { ADMIN, eventEnvelope, postEnvelope } from './helpers.ts'

/** An issue as the API returns it, with the triage fields. */
export interface IssueBody {
  id: number
  title: string
  status: string
  count: number
  for_review: boolean
  ignore_until: string | null
  ignore_count: number | null
}

/** Sends one message event with a key; resolves with its event id (throws unless 200). */
export async function sendEvent(
  app: FastifyInstance,
  projectId: number,
  key: string,
  message: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const eventId = randomUUID().replaceAll('-', '')
  const event = { event_id: eventId, message, level: 'error', platform: 'node', ...extra }
  const res = await postEnvelope(app, projectId, key, eventEnvelope(event))
  if (res.statusCode !== 200) throw new Error(`ingest failed: ${res.statusCode} ${res.body}`)
  return eventId
}

/** A management API call with the admin token. */
export function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  payload?: unknown,
) {
  const opts: InjectOptions = { method, url, headers: ADMIN }
  return app.inject(
    payload === undefined
      ? opts
      : { ...opts, payload: payload as NonNullable<InjectOptions['payload']> },
  )
}

/** The project's issues through the API, with an optional query string. */
export async function listIssues(
  app: FastifyInstance,
  projectId: number,
  query = '',
): Promise<IssueBody[]> {
  const res = await call(app, 'GET', `/api/0/projects/${projectId}/issues/${query}`)
  if (res.statusCode !== 200) throw new Error(`issue list failed: ${res.statusCode} ${res.body}`)
  return res.json<IssueBody[]>()
}

/** One issue through the API. */
export async function getIssue(app: FastifyInstance, id: number): Promise<IssueBody> {
  return (await call(app, 'GET', `/api/0/issues/${id}/`)).json<IssueBody>()
}
