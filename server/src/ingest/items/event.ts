import { ApiError } from '../../errors.ts'
import { resolveAutoIp } from '../../event/auto-ip.ts'
import { TrimNotes, trimBag } from '../../event/bounds.ts'
import { boundEventTime, correctClockDrift } from '../../event/clock.ts'
import { resolveLegacyAliases } from '../../event/legacy-aliases.ts'
import { repairNonFiniteJson } from '../../event/non-finite-json.ts'
import { normalizeEvent, normalizeEventId } from '../../event/normalize.ts'
import type { NormalizedEvent } from '../../event/types.ts'
import { fillUserAgentContexts } from '../../event/user-agent-contexts.ts'
import { wellFormed } from '../../event/well-formed.ts'
import { groupEvent } from '../../grouping/index.ts'
import { type FilterReason, inboundFilter } from '../../privacy/filters.ts'
import { policyOf } from '../../privacy/policy.ts'
import { scrubEvent } from '../../privacy/scrub.ts'
import type { PrivacySettings } from '../../privacy/settings.ts'
import { type EventSearchFields, eventSearchFields } from '../../search/event-tags.ts'
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
  /** The project's scrubbing and filter settings (privacy/); absent: a new project's. */
  readonly privacy?: PrivacySettings | undefined
  /**
   * How far the sender's clock was behind (ms, negative: ahead), from the envelope's `sent_at`
   * (event/clock.ts `clockDrift`); 0 or absent: no correction.
   */
  readonly clockDrift?: number | undefined
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
  privacy?: PrivacySettings | null,
  clockDrift?: number,
): DigestScope {
  return {
    project: { id: projectId },
    key: { id: keyId, component },
    received,
    clientIp: clientIp ?? undefined,
    privacy: privacy ?? undefined,
    ...(clockDrift ? { clockDrift } : {}),
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

/** An event an inbound filter dropped: counted as outcome `filtered` with this reason. */
export interface FilteredEvent {
  filtered: FilterReason
}

/**
 * Normalises, scrubs and groups one event and builds the row to write (the digest step), for
 * events the server makes itself (cron failures): scrubbed, never filtered. Shared by cron
 * failures and check-in failure events; client events go through {@link digestClientEvent}.
 */
export function digestEvent(
  raw: Record<string, unknown>,
  ctx: DigestScope,
  eventId?: string,
): { row: EventToWrite; event: NormalizedEvent } {
  const r = digestWith(raw, ctx, eventId, false)
  if ('filtered' in r) throw new Error('an unfiltered digest filtered an event')
  return r
}

/**
 * The digest of a client's event (envelope `event` items, `/store/`, OTLP error records): the
 * project's inbound filters first (a filtered event is neither scrubbed nor stored), then as
 * {@link digestEvent}. An SDK's times are corrected for its clock by the envelope's `sent_at`
 * (`ctx.clockDrift`), then an event still far from the receive time is dated when it arrived
 * (`event/clock.ts`); `keepTime` keeps the time as sent, for an OTLP log record, whose time is
 * when the application logged it, however long a collector held it.
 */
export function digestClientEvent(
  raw: Record<string, unknown>,
  ctx: DigestScope,
  eventId?: string,
  keepTime = false,
): { row: EventToWrite; event: NormalizedEvent } | FilteredEvent {
  return digestWith(raw, ctx, eventId, true, !keepTime)
}

function digestWith(
  raw: Record<string, unknown>,
  ctx: DigestScope,
  eventId: string | undefined,
  filter: boolean,
  boundTime = false,
): { row: EventToWrite; event: NormalizedEvent } | FilteredEvent {
  const event = normalizeEvent(raw, {
    ...(eventId !== undefined ? { eventId } : {}),
    received: ctx.received / 1000,
  })
  if (boundTime) {
    const received = ctx.received / 1000
    // Rare (a clock off by 55 min or more): one comparison per event otherwise.
    if (ctx.clockDrift) correctClockDrift(event, ctx.clockDrift / 1000, received, raw)
    boundEventTime(event, received, raw)
  }
  const policy = policyOf(ctx.privacy)
  // A project that stores no IP addresses gets none filled in from the connection either.
  resolveAutoIp(event, policy.scrub.scrubIp ? undefined : ctx.clientIp, inferIp(raw))
  if (filter) {
    const filtered = inboundFilter(event, ctx.clientIp, policy.filters)
    if (filtered !== undefined) return { filtered }
  }
  // The browser and OS a browser SDK's User-Agent names (Relay fills them the same way).
  fillUserAgentContexts(event)
  const component = ctx.key.component
  // Unknown top-level keys are kept for display, trimmed like every other databag. A client's
  // own `_meta` is not: remarks are the server's (below), never taken from the sender. A
  // top-level `message` keeps its place but not its value: the normaliser read it into
  // `logentry`, and the stored `message` is that entry's scrubbed text (below).
  const extraNotes = new TrimNotes()
  const stored: Record<string, unknown> = {}
  for (const k in raw) {
    if (!Object.hasOwn(raw, k) || k in event || k === '_meta') continue
    stored[k] = k === 'message' ? undefined : trimBag(raw[k], k, extraNotes, 1)
  }
  if (extraNotes.notes.length > 0) event.errors = [...(event.errors ?? []), ...extraNotes.list()]
  // Scrubbed before grouping: a secret can neither split an issue nor show in its title.
  const meta = scrubEvent(event, stored, policy.scrub)
  // The key's label, which an admin chose, after scrubbing (`auth-service` is no secret).
  if (component !== null && !event.tags.some(([k]) => k === 'component')) {
    event.tags.push(['component', component])
  }
  if ('message' in stored) {
    const text = event.logentry?.formatted ?? event.logentry?.message
    if (text !== undefined) stored['message'] = text
    else delete stored['message']
  }
  const group = groupEvent(event)
  // The search fields, from the scrubbed event (a filtered value is never indexed); tags dropped
  // for their bounds are noted on the event, not refused.
  const search: EventSearchFields = eventSearchFields(event)
  if (search.dropped.length > 0) event.errors = [...(event.errors ?? []), ...search.dropped]
  // The one serialisation of the event (unknown keys first, then the normalised event, then the
  // labels), built in place: a spread into a fresh object cost a copy of every key per event.
  Object.assign(stored, event)
  stored['title'] = group.title
  stored['culprit'] = group.culprit
  if (meta !== undefined) stored['_meta'] = meta
  const payload = JSON.stringify(stored)
  const digested: { row: EventToWrite; event: NormalizedEvent } = {
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
  if (group.previousHash !== undefined) digested.row.previousHash = group.previousHash
  // JSON keeps a lone surrogate escaped (`\ud800`), but the row's text columns hold it as a
  // character, which SQLite read back as three U+FFFD and PostgreSQL as one: written as one
  // U+FFFD here, both backends show and find the same text.
  if (payload.includes('\\ud')) wellFormedRow(digested.row)
  return digested
}

/** The row's text columns with each lone surrogate as U+FFFD (see `digestWith`). */
function wellFormedRow(row: EventToWrite): void {
  row.title = wellFormed(row.title)
  row.culprit = wellFormed(row.culprit)
  if (row.type !== null) row.type = wellFormed(row.type)
  if (row.value !== null) row.value = wellFormed(row.value)
  if (row.text !== undefined) row.text = wellFormed(row.text)
  if (row.tags !== undefined) row.tags = row.tags.map(([k, v]) => [wellFormed(k), wellFormed(v)])
}

/** The JS SDKs' `sdk.settings.infer_ip` ("auto" | "never"), when sent. */
function inferIp(raw: Record<string, unknown>): string | undefined {
  const sdk = raw['sdk']
  if (sdk === null || typeof sdk !== 'object' || Array.isArray(sdk)) return undefined
  const settings = (sdk as Record<string, unknown>)['settings']
  if (settings === null || typeof settings !== 'object' || Array.isArray(settings)) return undefined
  const v = (settings as Record<string, unknown>)['infer_ip']
  return typeof v === 'string' ? v : undefined
}

/**
 * The digest of one event item's bytes: parsed (a payload that is not a JSON object is a 400
 * for the whole request), normalised, grouped, serialised. `headerId` is the envelope header's
 * id when it wins over the payload's. Runs in the digest threads (digest-pool.ts) or inline.
 * `parsed`: the payload already parsed (and its frames resolved against source maps) by the
 * caller, which then hands it over: the digest may change it.
 */
export function digestPayload(
  payload: Uint8Array,
  scope: DigestScope,
  headerId: string | undefined,
  parsed?: Record<string, unknown>,
): EventToWrite | FilteredEvent {
  const raw = resolveLegacyAliases(
    parsed ?? parseEventJson(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)),
  )
  const r = digestClientEvent(raw, scope, headerId ?? normalizeEventId(raw['event_id']))
  return 'filtered' in r ? r : r.row
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
