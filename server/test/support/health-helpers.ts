import type { FastifyInstance } from 'fastify'
import { ADMIN } from './helpers.ts'

/** GET on the management API as admin, parsed as JSON (status checked by the caller). */
export async function adminGet<T = unknown>(app: FastifyInstance, url: string) {
  const res = await app.inject({ method: 'GET', url, headers: ADMIN })
  return { status: res.statusCode, body: res.json<T>(), headers: res.headers }
}

/** Health figures as the API returns them. */
export interface HealthJson {
  sessions: number
  users: number
  crash_free_sessions: number | null
  crash_free_users: number | null
  sessions_healthy: number
  sessions_errored: number
  sessions_unhandled: number
  sessions_abnormal: number
  sessions_crashed: number
  users_healthy: number
  users_errored: number
  users_unhandled: number
  users_abnormal: number
  users_crashed: number
}

/** One entry of `GET /releases/`. */
export interface ReleaseJson {
  version: string
  first_seen: string
  last_seen: string
  environments: (string | null)[]
  health: HealthJson
}

/** `GET /releases/` of a project. */
export async function releasesOf(app: FastifyInstance, projectId: number, query = '') {
  const r = await adminGet<ReleaseJson[]>(app, `/api/0/projects/${projectId}/releases/${query}`)
  if (r.status !== 200) throw new Error(`releases: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body
}

/** A session update payload with defaults (release r@1, environment prod, started now). */
export function session(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sid: crypto.randomUUID().replaceAll('-', ''),
    init: true,
    started: new Date().toISOString(),
    status: 'exited',
    errors: 0,
    attrs: { release: 'r@1', environment: 'prod' },
    ...over,
  }
}
