import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ApiError } from '../../errors.ts'
import { normalizeEventId } from '../../event/normalize.ts'
import { wellFormed } from '../../event/well-formed.ts'
import { failureEvent } from '../../schedule/failure-event.ts'
import { derivedId, ZERO_ID } from '../../schedule/ids.ts'
import { parseMonitorConfig } from '../../schedule/schedule.ts'
import type { CheckInToWrite } from '../../store/monitor-types.ts'
import type { IngestContext } from '../context.ts'
import { digestEvent } from './event.ts'

/** Longest check-in duration kept, s (366 days). */
const MAX_DURATION_S = 366 * 24 * 3600

/** Sentry's slug length for monitors. */
const MAX_SLUG = 50

/** A `check_in` item (protocol.md §6.4); Python wraps it in a whole event, so extra keys pass. */
const CheckIn = z.looseObject({
  check_in_id: z.string().max(64),
  monitor_slug: z.string().max(512),
  status: z.string().max(32),
  duration: z.number().nonnegative().nullish(),
  environment: z.string().max(512).transform(wellFormed).nullish(),
  release: z.string().max(250).transform(wellFormed).nullish(),
  monitor_config: z.unknown().optional(),
  contexts: z.unknown().optional(),
})

const STATUSES = new Set(['in_progress', 'ok', 'error'])

/** Monitor slugs as Sentry stores them: lower-case, `[a-z0-9_-]`, at most 50 characters. */
export function monitorSlug(raw: string): string {
  return raw
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9_\s-]/g, '')
    .replace(/[\s-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_SLUG)
    .replace(/-+$/, '')
}

function traceIdOf(contexts: unknown): string | null {
  if (contexts === null || typeof contexts !== 'object') return null
  const trace = (contexts as Record<string, unknown>)['trace']
  if (trace === null || typeof trace !== 'object') return null
  const id = (trace as Record<string, unknown>)['trace_id']
  return typeof id === 'string' && /^[0-9a-f]{32}$/i.test(id) ? id.toLowerCase() : null
}

function invalid(detail: string): never {
  throw new ApiError('invalid_json', `invalid check_in payload: ${detail}`)
}

/**
 * `check_in` items: open, heartbeat or close a run of a cron monitor. The monitor is created or
 * updated from `monitor_config` in the commit; an `error` run also becomes an error event there.
 * A `monitor_config` that does not validate is ignored for a known monitor and makes the
 * check-in of an unknown one rejected (Sentry). Costs no quota.
 */
export function handleCheckInItem(payload: Buffer, ctx: IngestContext, maxSize: number): void {
  if (payload.length > maxSize) {
    throw new ApiError(
      'too_large',
      `envelope exceeded size limits for type 'check_in' (${payload.length} > ${maxSize} bytes)`,
    )
  }
  let json: unknown
  try {
    json = JSON.parse(payload.toString('utf8'))
  } catch {
    invalid('not JSON')
  }
  const r = CheckIn.safeParse(json)
  if (!r.success) {
    const fields = r.error.issues.map((i) => `${i.path.join('.') || 'check_in'}: ${i.message}`)
    throw new ApiError('invalid_json', `invalid check_in payload: ${fields.join('; ')}`, fields)
  }
  const c = r.data
  const checkInId = normalizeEventId(c.check_in_id) ?? invalid('check_in_id is not a UUID')
  const slug = monitorSlug(c.monitor_slug)
  if (slug === '') invalid('monitor_slug is empty')
  const status = c.status.toLowerCase()
  if (!STATUSES.has(status)) {
    invalid(`status must be in_progress, ok or error, got "${c.status.slice(0, 32)}"`)
  }
  const environment = (c.environment ?? '').trim().slice(0, 64) || 'production'
  const release = c.release?.trim() || null
  // A duration beyond a year is no run's (`1e13`): dropped, the run's own span is used instead.
  const durationMs =
    c.duration == null || c.duration > MAX_DURATION_S ? null : Math.round(c.duration * 1000)
  const traceId = traceIdOf(c.contexts)
  const checkIn: CheckInToWrite = {
    projectId: ctx.project.id,
    keyId: ctx.key.id,
    received: ctx.received,
    checkInId,
    freshId: randomUUID().replaceAll('-', ''),
    slug,
    status: status as CheckInToWrite['status'],
    environment,
    durationMs,
    release,
    traceId,
    config: c.monitor_config == null ? undefined : parseMonitorConfig(c.monitor_config),
  }
  if (status === 'error') {
    // Derived from the run's id, so a resent error check-in cannot become a second event.
    const eventId =
      checkInId === ZERO_ID
        ? randomUUID().replaceAll('-', '')
        : derivedId('error', ctx.project.id, slug, checkInId)
    const raw = failureEvent({
      kind: 'error',
      slug,
      environment,
      release,
      checkInId,
      at: ctx.received,
      durationMs,
      traceId,
    })
    checkIn.failure = digestEvent(raw, ctx, eventId).row
  }
  ctx.unit.checkIns ??= []
  ctx.unit.checkIns.push(checkIn)
}
