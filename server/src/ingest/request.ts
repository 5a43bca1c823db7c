import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.ts'
import { type Credentials, credentialsFromRequest } from './auth.ts'

/** The project id of an ingest path; ids are unsigned integers (Relay: u64), else a 400. */
export function pathProject(req: FastifyRequest): number {
  const raw = (req.params as { projectId?: string }).projectId ?? ''
  const id = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(id)) {
    throw new ApiError('bad_project_path', `bad project id "${raw.slice(0, 40)}" in path`)
  }
  return id
}

/** The credential of an endpoint without an envelope header (`/store/`, OTLP): query, then header, else 401. */
export function requireRequestCredentials(req: FastifyRequest): Credentials {
  const creds = credentialsFromRequest(req.query as Record<string, unknown>, req.headers)
  if (creds === undefined) {
    throw new ApiError(
      'missing_auth',
      'missing authorization: send sentry_key in the query or an X-Sentry-Auth header',
    )
  }
  return creds
}
