import type { PrivacySettings } from '../privacy/settings.ts'
import type { EventToWrite, EventWriteResult, OutcomeDelta, UnitQuota } from './model.ts'
import type { CheckInToWrite } from './monitor-types.ts'
import type { SessionBucket, SessionUpdate } from './release-health-types.ts'

/** One unit of the group commit: everything one request writes. */
export interface WriteUnit {
  events: EventToWrite[]
  outcomes: OutcomeDelta[]
  /** Release health: single-session updates and pre-aggregated buckets. */
  sessions?: SessionUpdate[]
  sessionBuckets?: SessionBucket[]
  /** Cron check-ins; an `error` run's event is added to the unit's results. */
  checkIns?: CheckInToWrite[]
  /** Outcomes counted only when none of the unit's events was refused for quota. */
  outcomesIfAdmitted?: OutcomeDelta[]
  /**
   * Event items not digested yet (parsed, normalised, grouped, serialised): the write digests
   * them before its transaction and appends their rows to `events` (ingest/digest-on-write.ts),
   * on the SQLite writer thread when the store has one, so the thread that serves HTTP does not.
   */
  undigested?: UndigestedEvents | undefined
}

/**
 * A request's event items as received, with what their digest needs to know of the request
 * (ingest/items/event.ts `DigestScope`).
 */
export interface UndigestedEvents {
  projectId: number
  keyId: number
  component: string | null
  /** Receive time, ms. */
  received: number
  clientIp: string | null
  /** The project's scrubbing and filter settings (privacy/settings.ts); null: a new project's. */
  privacy?: PrivacySettings | null
  /** Each item's bytes and, when it wins over the payload's, the envelope header's event id. */
  items: { payload: Uint8Array; headerId: string | null }[]
  /**
   * How far the sender's clock was behind (ms, negative: ahead), from the envelope's `sent_at`
   * (event/clock.ts `clockDrift`); absent: no correction.
   */
  clockDrift?: number
  /**
   * Set when the project has source-map bundles: the items' minified frames are resolved right
   * before their digest (ingest/digest-on-write.ts), with the receiving node's mark.
   */
  sourceMaps?: SourceMapMark
}

/**
 * What the node that received events had seen of source-map changes, for the resolver on the
 * store's write (another thread keeps its own cache): its counts of uploads and of removals (a
 * release file deleted). A larger upload count than that resolver last saw drops its cached
 * "no map" answers, a larger removal count every map it cached.
 */
export interface SourceMapMark {
  uploads: number
  removals: number
}

/**
 * Why a unit's undigested events could not be digested, as data (it crosses threads): a
 * client's error (`client`, an ApiError code) refuses its request with a 4xx; anything else is
 * a server fault. Nothing of such a unit is written.
 */
export interface DigestFailure {
  code: string
  detail: string
  client: boolean
}

/** The results of one unit, in the order of its events. */
export interface WriteUnitResult {
  /** The unit's stored (or duplicate) events; events refused for quota are left out. */
  events: EventWriteResult[]
  /** Set when the unit's undigested events could not be digested: nothing of it was written. */
  refused?: DigestFailure
  /** Set when the unit's project has an event quota: what the charge met (quota-rules.ts). */
  quota?: UnitQuota
  /**
   * The outcome counters the transaction that wrote this unit added, summed for its whole
   * group: set on one result of a committed group only. The group committer hands them to the
   * metrics (metrics/registry.ts), so `/metrics` counts exactly what the outcomes table got.
   */
  outcomes?: OutcomeDelta[]
}

/** The ingest write path: one call per group commit. */
export interface IngestStore {
  write(units: WriteUnit[]): Promise<WriteUnitResult[]>
  /**
   * The write digests units' `undigested` events itself, on its writer thread (a SQLite file);
   * any other store is wrapped by ingest/digest-on-write.ts `digestingStore`, which digests
   * them on the calling thread first.
   */
  readonly digestsOnWriter?: true
}
