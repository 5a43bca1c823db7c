import { createHash, randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ApiError } from '../../errors.ts'
import { parseTimestamp } from '../../event/normalize.ts'
import { wellFormed } from '../../event/well-formed.ts'
import type { SessionBucket, SessionCategory } from '../../store/release-health-types.ts'
import type { IngestContext } from '../context.ts'

const timestamp = z.union([z.string().max(64), z.number()])
const count = z
  .number()
  .nonnegative()
  .max(2 ** 32)
  .transform(Math.floor)
const optCount = count.nullish().transform((v) => v ?? 0)
const did = z
  .union([z.string().max(256), z.number()])
  .nullish()
  .transform((v) => (v === null || v === undefined || v === '' ? null : String(v)))

/** `attrs`: release is required (Relay drops sessions without one), environment optional. */
const Attrs = z.looseObject({
  release: z.string().trim().min(1).max(250).transform(wellFormed),
  environment: z.string().max(64).transform(wellFormed).nullish(),
})

/** A `session` item (protocol.md §6.2); unknown keys are ignored. */
const Session = z.looseObject({
  sid: z.string().min(1).max(128).nullish(),
  did,
  started: timestamp,
  timestamp: timestamp.nullish(),
  // An open set: statuses newer SDKs invent count like `ok` (Relay keeps them as unknown).
  status: z.string().max(32).nullish(),
  errors: optCount,
  attrs: Attrs,
})

/** One bucket of a `sessions` item (protocol.md §6.3). */
const Aggregate = z.looseObject({
  started: timestamp,
  did,
  exited: optCount,
  errored: optCount,
  unhandled: optCount,
  abnormal: optCount,
  crashed: optCount,
})

/** A `sessions` item: pre-aggregated buckets sharing one `attrs`. */
const Sessions = z.looseObject({
  attrs: Attrs,
  aggregates: z.array(Aggregate).max(10_000),
})

/** The category one update puts a session in; an `ok`/`exited` one with errors is errored. */
export function sessionCategory(status: string, errors: number): SessionCategory {
  switch (status) {
    case 'crashed':
      return 'crashed'
    case 'abnormal':
      return 'abnormal'
    case 'unhandled':
      return 'unhandled'
    case 'errored':
      return 'errored'
    default:
      return errors > 0 ? 'errored' : 'healthy'
  }
}

/** Distinct ids are stored hashed (Relay hashes them too): counting needs no raw user ids. */
const hashDid = (v: string | null): string | null =>
  v === null ? null : createHash('sha256').update(v).digest('hex').slice(0, 32)

/** Parses a session-like payload; not JSON or not the expected shape is a 400 for the request. */
function parse<T extends z.ZodType>(
  payload: Buffer,
  schema: T,
  what: string,
  maxSize: number,
): z.output<T> {
  if (payload.length > maxSize) {
    throw new ApiError(
      'too_large',
      `envelope exceeded size limits for type '${what}' (${payload.length} > ${maxSize} bytes)`,
    )
  }
  let json: unknown
  try {
    json = JSON.parse(payload.toString('utf8'))
  } catch {
    throw new ApiError('invalid_json', `invalid ${what} payload: not JSON`)
  }
  const r = schema.safeParse(json)
  if (r.success) return r.data
  const fields = r.error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`)
  throw new ApiError('invalid_json', `invalid ${what} payload: ${fields.join('; ')}`, fields)
}

/** A client time in ms, or a 400 naming the field. */
function time(value: unknown, field: string, what: string, shift: number): number {
  const s = parseTimestamp(value)
  if (s === undefined) {
    throw new ApiError('invalid_json', `invalid ${what} payload: ${field} is not a timestamp`)
  }
  return Math.round(s * 1000) + shift
}

/**
 * `session` items: one update of one session, folded into the release-health rollups in the
 * commit (a session id counts once; its worst reported state wins). Costs no quota; counted as
 * an accepted `session` outcome.
 */
export function handleSessionItem(payload: Buffer, ctx: IngestContext, maxSize: number): void {
  const s = parse(payload, Session, 'session', maxSize)
  // Client-clock correction by the envelope's `sent_at` (0 unless off by 55 min or more).
  const shift = ctx.clockDrift
  const status = (s.status ?? 'ok').toLowerCase()
  const started = time(s.started, 'started', 'session', shift)
  const at = s.timestamp == null ? ctx.received : time(s.timestamp, 'timestamp', 'session', shift)
  ctx.unit.sessions ??= []
  ctx.unit.sessions.push({
    projectId: ctx.project.id,
    // A session without an id (allowed for a single `exited` update) is a session of its own.
    sid: s.sid ?? randomUUID(),
    did: hashDid(s.did),
    release: s.attrs.release,
    environment: s.attrs.environment ?? '',
    started,
    timestamp: at,
    status,
    errors: s.errors,
    category: sessionCategory(status, s.errors),
  })
  ctx.outcome('accepted', '', 'session', 1)
}

/**
 * `sessions` items: per-minute counts from server SDKs in request mode, added to the rollups
 * as they are (aggregates carry no session ids, so they cannot be deduplicated). Counted as
 * accepted `session` outcomes, one per session they represent.
 */
export function handleSessionsItem(payload: Buffer, ctx: IngestContext, maxSize: number): void {
  const s = parse(payload, Sessions, 'sessions', maxSize)
  // Client-clock correction by the envelope's `sent_at` (0 unless off by 55 min or more).
  const shift = ctx.clockDrift
  const buckets: SessionBucket[] = s.aggregates.map((a, i) => ({
    projectId: ctx.project.id,
    release: s.attrs.release,
    environment: s.attrs.environment ?? '',
    started: time(a.started, `aggregates.${i}.started`, 'sessions', shift),
    did: hashDid(a.did),
    counts: {
      healthy: a.exited,
      errored: a.errored,
      unhandled: a.unhandled,
      abnormal: a.abnormal,
      crashed: a.crashed,
    },
  }))
  ctx.unit.sessionBuckets ??= []
  ctx.unit.sessionBuckets.push(...buckets)
  const total = buckets.reduce((n, b) => n + Object.values(b.counts).reduce((x, y) => x + y, 0), 0)
  if (total > 0) ctx.outcome('accepted', '', 'session', total)
}
