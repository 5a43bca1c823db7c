import type { Limits } from '../../config.ts'
import { ApiError } from '../../errors.ts'
import { isObj } from '../../event/json.ts'
import type { IngestContext } from '../context.ts'
import type { EnvelopeItem } from '../envelope.ts'
import { handleCheckInItem } from './check-in.ts'
import { handleClientReport } from './client-report.ts'
import { queueEventItem } from './event.ts'
import { unsupportedReason } from './outcome-names.ts'
import { handleSessionItem, handleSessionsItem } from './session.ts'

/** Per-envelope facts a handler may need. */
export interface ItemEnv {
  limits: Limits
  /** Number of `event` items in the envelope. */
  eventCount: number
}

/**
 * A handler validates one item and adds what it produces to the context (events are queued
 * for the digest, which follows); it may throw ApiError.
 */
export type ItemHandler = (item: EnvelopeItem, ctx: IngestContext, env: ItemEnv) => void

/**
 * The dispatch table: item type → handler. Types not listed here are dropped and counted as
 * `unsupported:<type>` (`unsupported:unknown` for a type Relay does not know either), never
 * fatal (the spec's envelope rule 1).
 */
export const ITEM_HANDLERS: Record<string, ItemHandler> = {
  event: (item, ctx, env) =>
    queueEventItem(item.payload, ctx, env.limits.maxEvent, env.eventCount === 1),
  client_report: (item, ctx, env) => handleClientReport(item.payload, ctx, env.limits.maxSmallItem),
  session: (item, ctx, env) => handleSessionItem(item.payload, ctx, env.limits.maxSmallItem),
  sessions: (item, ctx, env) => handleSessionsItem(item.payload, ctx, env.limits.maxSmallItem),
  check_in: (item, ctx, env) => handleCheckInItem(item.payload, ctx, env.limits.maxSmallItem),
}

/** Rate-limit / outcome data category of an item type (protocol.md §5.2). */
export function categoryOf(type: string): string {
  switch (type) {
    case 'event':
      return 'error'
    case 'transaction':
      return 'transaction'
    case 'attachment':
      return 'attachment'
    case 'session':
    case 'sessions':
      return 'session'
    case 'check_in':
      return 'monitor'
    case 'log':
      return 'log_item'
    case 'span':
      return 'span'
    case 'profile':
    case 'profile_chunk':
      return 'profile'
    case 'replay_event':
    case 'replay_recording':
    case 'replay_video':
      return 'replay'
    case 'feedback':
    case 'user_report':
      return 'feedback'
    case 'client_report':
      return 'internal'
    default:
      return 'default'
  }
}

/**
 * How many records an item stands for in its outcome: a container (`log`, `span` v2,
 * `trace_metric`) the entries of its payload's `items` array (Relay counts one per record), any
 * other item, or a container whose payload is no such object, one. The header's `item_count`
 * is not believed: Relay requires it to match the payload, and trusted it let a 40-byte item
 * with `item_count: 1e300` and `items: []` count 100,000 records.
 */
function itemQuantity(item: EnvelopeItem): number {
  if (!CONTAINER_TYPES.has(item.header.type)) return 1
  let json: unknown
  try {
    json = JSON.parse(item.payload.toString('utf8'))
  } catch {
    return 1
  }
  const entries = isObj(json) ? json['items'] : undefined
  return Array.isArray(entries) && entries.length > 0 ? entries.length : 1
}

/** Item types whose payload is a container of records (`{"items": [...]}`). */
const CONTAINER_TYPES: ReadonlySet<string> = new Set(['log', 'span', 'trace_metric'])

/**
 * Most `session` and `sessions` items one envelope may hold, Relay's `max_session_count`: more
 * and Relay refuses the envelope with 413 (each session item may name a release of its own, and
 * 2,000 per envelope made 50,000 releases from 25 requests).
 */
export const MAX_SESSION_ITEMS = 100

/** Runs every item of an envelope through its handler, counting unknown types as unsupported. */
export function handleItems(items: EnvelopeItem[], ctx: IngestContext, limits: Limits): void {
  const env: ItemEnv = { limits, eventCount: items.filter((i) => i.header.type === 'event').length }
  const sessions = items.filter((i) => i.header.type === 'session' || i.header.type === 'sessions')
  if (sessions.length > MAX_SESSION_ITEMS) {
    throw new ApiError(
      'too_large',
      `envelope exceeded size limits for type 'session' (${sessions.length} > ${MAX_SESSION_ITEMS} items)`,
    )
  }
  for (const item of items) {
    const handler = Object.hasOwn(ITEM_HANDLERS, item.header.type)
      ? ITEM_HANDLERS[item.header.type]
      : undefined
    if (handler === undefined) {
      ctx.outcome(
        'unsupported',
        unsupportedReason(item.header.type),
        categoryOf(item.header.type),
        itemQuantity(item),
      )
      continue
    }
    handler(item, ctx, env)
  }
}
