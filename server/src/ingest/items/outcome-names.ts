/**
 * The names a client may put into an outcome counter, bounded (docs/outcomes.md): each distinct
 * reason and category is a row of `outcomes` and of the Outcomes view, so a name the client
 * chose freely (an item type, a client report's reason or category) is kept only when it is
 * one of the known ones, and counted under one fixed name otherwise.
 */

/** Item types Relay knows (protocol.md §6.6, Relay's `ItemType`), counted under their name. */
const KNOWN_ITEM_TYPES: ReadonlySet<string> = new Set([
  'event',
  'transaction',
  'security',
  'raw_security',
  'nel',
  'attachment',
  'form_data',
  'unreal_report',
  'user_report',
  'feedback',
  'session',
  'sessions',
  'statsd',
  'metric_buckets',
  'metric_meta',
  'client_report',
  'profile',
  'profile_chunk',
  'profile_chunk_ui',
  'replay_event',
  'replay_recording',
  'replay_video',
  'check_in',
  'span',
  'log',
  'trace_metric',
  'otel_log',
  'otel_span',
  'otel_traces_data',
])

/** The `unsupported` reason of an item type Relay does not know. */
export const UNKNOWN_ITEM_REASON = 'unknown'

/**
 * The reason an unsupported item is counted under: its type when Relay knows it, else
 * `unknown` (each made-up type was a row of its own: 175,000 rows from 40 MB of envelopes).
 */
export function unsupportedReason(type: string): string {
  return KNOWN_ITEM_TYPES.has(type) ? type : UNKNOWN_ITEM_REASON
}

/** Discard reasons SDKs send (protocol.md §6.5: the spec's list and JS's `no_parent_span`). */
const DISCARD_REASONS: ReadonlySet<string> = new Set([
  'queue_overflow',
  'cache_overflow',
  'ratelimit_backoff',
  'network_error',
  'sample_rate',
  'before_send',
  'event_processor',
  'send_error',
  'internal_sdk_error',
  'insufficient_data',
  'backpressure',
  'buffer_overflow',
  'ignored',
  'invalid',
  'no_parent_span',
])

/** The reason a client report's discard is counted under when it names no known one. */
export const OTHER_DISCARD_REASON = 'other'

/** A client report's discard reason as counted: a known reason, else `other`. */
export function discardReason(reason: string): string {
  return DISCARD_REASONS.has(reason) ? reason : OTHER_DISCARD_REASON
}

/** Data categories Relay knows (protocol.md §5.2), and the SDKs' own `internal`. */
const DATA_CATEGORIES: ReadonlySet<string> = new Set([
  'default',
  'error',
  'transaction',
  'security',
  'attachment',
  'session',
  'profile',
  'replay',
  'transaction_processed',
  'transaction_indexed',
  'monitor',
  'profile_indexed',
  'span',
  'monitor_seat',
  'feedback',
  'user_report_v2',
  'metric_bucket',
  'span_indexed',
  'profile_duration',
  'profile_chunk',
  'metric_second',
  'replay_video',
  'uptime',
  'attachment_item',
  'log_item',
  'log_byte',
  'profile_duration_ui',
  'profile_chunk_ui',
  'seer_autofix',
  'seer_scanner',
  'prevent_user',
  'prevent_review',
  'size_analysis',
  'installable_build',
  'trace_metric',
  'seer_user',
  'profile_backend',
  'profile_ui',
  'internal',
])

/** The category a discard of a category Relay does not know is counted under (Relay's name). */
export const UNKNOWN_CATEGORY = 'unknown'

/** A client report's discard category as counted: a known category, else `unknown`. */
export function discardCategory(category: string): string {
  return DATA_CATEGORIES.has(category) ? category : UNKNOWN_CATEGORY
}
