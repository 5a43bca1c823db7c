import type { z } from 'zod'
import { ApiError } from '../errors.ts'
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
