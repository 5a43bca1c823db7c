import type { z } from 'zod'
import { ApiError, notFound } from '../errors.ts'
import type { Project, Store } from '../store/types.ts'

/** Parses request input with a zod schema; a mismatch is a 400 naming the fields. */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  what: string,
): z.output<T> {
  const r = schema.safeParse(value)
  if (r.success) return r.data
  const fields = r.error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`)
  throw new ApiError('bad_request', `invalid ${what}: ${fields.join('; ')}`, fields)
}

/** Parses a numeric path id; anything else is a 404 (no such resource). Used by the UI's routes. */
export function pathId(params: unknown, name: string): number {
  const raw = (params as Record<string, string | undefined>)[name] ?? ''
  const n = /^\d{1,15}$/.test(raw) ? Number(raw) : Number.NaN
  if (!Number.isSafeInteger(n))
    throw new ApiError('not_found', `no such ${name.replace(/Id$/, '')}`)
  return n
}

/** The project with this id; an unknown id is a 404. */
export async function pathProject(store: Store, projectId: number): Promise<Project> {
  const project = await store.getProject(projectId)
  if (project === undefined) throw new ApiError('not_found', 'no such project')
  return project
}

/**
 * A team's projects: the routes sentry-cli calls name projects by slug within an organization
 * (a team here), so every lookup by slug is among these only, never another team's.
 */
export async function teamProjects(store: Store, teamId: number): Promise<Project[]> {
  return (await store.listProjects()).filter((p) => p.teamId === teamId)
}

/** The team's project with this slug; another team's or none is a 404, alike. */
export async function teamProject(store: Store, teamId: number, slug: string): Promise<Project> {
  const own = (await teamProjects(store, teamId)).find((p) => p.slug === slug)
  if (own === undefined) throw notFound('project')
  return own
}
