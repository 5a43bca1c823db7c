import { ApiError } from '../../errors.ts'
import { resolveAutoIp } from '../../event/auto-ip.ts'
import { TrimNotes, trimBag } from '../../event/bounds.ts'
import { resolveLegacyAliases } from '../../event/legacy-aliases.ts'
import { repairNonFiniteJson } from '../../event/non-finite-json.ts'
import { normalizeEvent, normalizeEventId } from '../../event/normalize.ts'
import type { NormalizedEvent } from '../../event/types.ts'
import { groupEvent } from '../../grouping/index.ts'
import { eventSearchFields } from '../../search/event-tags.ts'
import type { EventToWrite } from '../../store/types.ts'
import type { IngestContext } from '../context.ts'

/**
 * What digesting an event needs to know of its request: the project and key it came with and
 * when it arrived. An {@link IngestContext} is one; the digest threads get just these fields.
 */
export interface DigestScope {
  readonly project: { readonly id: number }
  readonly key: { readonly id: number; readonly component: string | null }
  /** Receive time, ms. */
  readonly received: number
  /** The sender's address as the server sees it (`req.ip`), for `{{auto}}`; none off-request. */
  readonly clientIp?: string | undefined
}

/**
 * A scope rebuilt from the plain fields that cross to another thread (the digest threads'
 * jobs, the SQLite writer's undigested events).
 */
export function digestScope(
  projectId: number,
  keyId: number,
  component: string | null,
  received: number,
  clientIp: string | null,
): DigestScope {
  return {
    project: { id: projectId },
    key: { id: keyId, component },
    received,
    clientIp: clientIp ?? undefined,
  }
}

/** Parses an event payload as a JSON object; anything else is a 400 for the whole request. */
export function parseEventJson(payload: Buffer, what = 'event'): Record<string, unknown> {
  let value: unknown
  const text = payload.toString('utf8')
  try {
    value = JSON.parse(text)
  } catch {
    value = parseRepaired(text, what)
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('invalid_json', `invalid ${what} payload: not a JSON object`)
  }
  return value as Record<string, unknown>
}

/** Parses JSON with Python's non-finite number tokens read as null; else a 400. */
function parseRepaired(text: string, what: string): unknown {
  const repaired = repairNonFiniteJson(text)
  try {
    if (repaired !== undefined) return JSON.parse(repaired)
  } catch {
    // Broken in another way too.
  }
  throw new ApiError('invalid_json', `invalid ${what} payload: not JSON`)
}

/**
 * Normalises and groups one event and builds the row to write (the digest step). Shared by
 * envelope `event` items, `/store/`, cron failures and OTLP error records.
 */
export function digestEvent(
  raw: Record<string, unknown>,
  ctx: DigestScope,
  eventId?: string,
): { row: EventToWrite; event: NormalizedEvent } {
  const event = normalizeEvent(raw, {
    ...(eventId !== undefined ? { eventId } : {}),
    received: ctx.received / 1000,
  })
  resolveAutoIp(event, ctx.clientIp)
  const group = groupEvent(event)
  const component = ctx.key.component
  if (component !== null && !event.tags.some(([k]) => k === 'component')) {
    event.tags.push(['component', component])
  }
  // Unknown top-level keys are kept for display, trimmed like every other databag.
  const extraNotes = new TrimNotes()
  const stored: Record<string, unknown> = {}
  for (const k in raw) {
    if (Object.hasOwn(raw, k) && !(k in event)) stored[k] = trimBag(raw[k], k, extraNotes, 1)
  }
  if (extraNotes.notes.length > 0) event.errors = [...(event.errors ?? []), ...extraNotes.list()]
  // The search fields; tags dropped for their bounds are noted on the event, not refused.
  const search = eventSearchFields(event)
  if (search.dropped.length > 0) event.errors = [...(event.errors ?? []), ...search.dropped]
  // The one serialisation of the event (unknown keys first, then the normalised event, then the
  // labels), built in place: a spread into a fresh object cost a copy of every key per event.
  Object.assign(stored, event)
  stored['title'] = group.title
  stored['culprit'] = group.culprit
  const payload = JSON.stringify(stored)
  return {
    event,
    row: {
      projectId: ctx.project.id,
      keyId: ctx.key.id,
      eventId: event.event_id,
      timestamp: Math.round(event.timestamp * 1000),
      received: ctx.received,
      level: event.level,
      title: group.title,
      culprit: group.culprit,
      type: group.metadata.type ?? null,
      value: group.metadata.value ?? null,
      release: event.release ?? null,
      environment: event.environment ?? null,
      component,
      hash: group.hash,
      groupingVersion: group.version,
      payload,
      tags: search.tags,
      text: search.text,
    },
  }
}

/**
 * The digest of one event item's bytes: parsed (a payload that is not a JSON object is a 400
 * for the whole request), normalised, grouped, serialised. `headerId` is the envelope header's
 * id when it wins over the payload's. Runs in the digest threads (digest-pool.ts) or inline.
 */
export function digestPayload(
  payload: Uint8Array,
  scope: DigestScope,
  headerId: string | undefined,
): EventToWrite {
  const raw = resolveLegacyAliases(
    parseEventJson(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)),
  )
  return digestEvent(raw, scope, headerId ?? normalizeEventId(raw['event_id'])).row
}

/**
 * `event` items: errors and messages, checked for size here and queued on the request for the
 * digest (`ctx.digests`), which runs once every item of the envelope was handled. With one
 * event in the envelope the header's `event_id` wins over the payload's (Relay); with several
 * (allowed here, each costs quota) every event keeps its own id, since one id for all would
 * collapse them into one.
 */
export function queueEventItem(
  payload: Buffer,
  ctx: IngestContext,
  maxEvent: number,
  useHeaderId: boolean,
): void {
  if (payload.length > maxEvent) {
    throw new ApiError(
      'too_large',
      `envelope exceeded size limits for type 'event' (${payload.length} > ${maxEvent} bytes)`,
    )
  }
  const headerId = useHeaderId ? normalizeEventId(ctx.envelopeHeader['event_id']) : undefined
  ctx.queueDigest(payload, headerId)
}
