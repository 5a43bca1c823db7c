import { z } from 'zod'
import { ApiError } from '../errors.ts'
import { parseInput } from '../http-kit/validate.ts'
import type { Issue, IssueChange, Store } from '../store/types.ts'

const MINUTES_PER_YEAR = 525_600

const IGNORE_FIELDS = ['ignore_until', 'ignore_duration', 'ignore_count'] as const

/**
 * The combinations {@link toIssueChange} refuses, written as JSON Schema for the document
 * (zod checks the fields; `toIssueChange` words the 400): something to change (`status` or
 * `reviewed`), ignore conditions only with `"status": "ignored"`, not both ways of timing it.
 */
const UPDATE_RULES = {
  allOf: [
    { anyOf: [{ required: ['status'] }, { required: ['reviewed'] }] },
    {
      anyOf: [
        { not: { anyOf: IGNORE_FIELDS.map((f) => ({ required: [f] })) } },
        { required: ['status'], properties: { status: { const: 'ignored' } } },
      ],
    },
    { not: { required: ['ignore_until', 'ignore_duration'] } },
  ],
}

/** Body of `PUT /api/0/issues/{id}/`: a status, ignore conditions, the reviewed mark. */
const IssueFields = {
  status: z.enum(['unresolved', 'resolved', 'ignored']).optional(),
  /** With `ignored`: ignore until this time (ISO 8601 with offset), then back to For review. */
  ignore_until: z.iso.datetime({ offset: true }).optional(),
  /** With `ignored`: ignore for this many minutes (instead of `ignore_until`). */
  ignore_duration: z.number().int().min(1).max(MINUTES_PER_YEAR).optional(),
  /** With `ignored`: ignore until the issue is seen this many more times. */
  ignore_count: z.number().int().min(1).max(1_000_000_000).optional(),
  /** true takes the issue out of For review; false puts it back (if unresolved). */
  reviewed: z.boolean().optional(),
}

/** Body of `PUT /api/0/issues/{id}/`: a status, ignore conditions, the reviewed mark. */
export const IssueUpdate = z.strictObject(IssueFields).meta(UPDATE_RULES)

/** Body of the bulk `PUT /api/0/projects/{id}/issues/`: the same change for many issues. */
export const BulkIssueUpdate = z
  .strictObject({ ...IssueFields, ids: z.array(z.number().int().positive()).min(1).max(1000) })
  .meta(UPDATE_RULES)

/** A parsed update body. */
export type IssueUpdateBody = z.output<typeof IssueUpdate>

/**
 * Turns a parsed update body into a store change, refusing combinations that mean nothing
 * (400 with a detail saying why). `now` fixes the end of `ignore_duration`.
 */
export function toIssueChange(body: IssueUpdateBody, now: number): IssueChange {
  const { status, ignore_until, ignore_duration, ignore_count, reviewed } = body
  const ignoring = ignore_until !== undefined || ignore_duration !== undefined
  if ((ignoring || ignore_count !== undefined) && status !== 'ignored') {
    throw new ApiError(
      'bad_request',
      'ignore_until, ignore_duration and ignore_count need "status": "ignored"',
    )
  }
  if (status === undefined && reviewed === undefined) {
    throw new ApiError('bad_request', 'nothing to change: send "status" and/or "reviewed"')
  }
  if (ignore_until !== undefined && ignore_duration !== undefined) {
    throw new ApiError('bad_request', 'send ignore_until or ignore_duration, not both')
  }
  let until: number | undefined
  if (ignore_until !== undefined) {
    until = Date.parse(ignore_until)
    if (!(until > now)) throw new ApiError('bad_request', 'ignore_until must be in the future')
  } else if (ignore_duration !== undefined) {
    until = now + ignore_duration * 60_000
  }
  return {
    ...(status !== undefined ? { status } : {}),
    ...(until !== undefined ? { ignoreUntil: until } : {}),
    ...(ignore_count !== undefined ? { ignoreCount: ignore_count } : {}),
    ...(reviewed !== undefined ? { reviewed } : {}),
  }
}

/**
 * Validates an API-shaped update (`{status?, ignore_until?, ignore_duration?, ignore_count?,
 * reviewed?}`) and applies it to those of `ids` that belong to the project; the one entry point
 * for the API and the web UI. Throws `ApiError` 400 on bad input; returns the updated issues.
 */
export async function updateIssues(
  store: Store,
  projectId: number,
  ids: readonly number[],
  input: unknown,
  now = Date.now(),
): Promise<Issue[]> {
  const change = toIssueChange(parseInput(IssueUpdate, input, 'issue update'), now)
  return store.triageIssues(projectId, ids, change)
}
