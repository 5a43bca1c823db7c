import type { Page } from './model.ts'
/**
 * Storage types of release health: session updates and pre-aggregated buckets folded into
 * hourly rollups per project, release and environment (protocol.md §6.2, §6.3).
 */

/** A session's health, from best to worst; a session keeps the worst it ever reported. */
export const SESSION_CATEGORIES = [
  'healthy',
  'errored',
  'unhandled',
  'abnormal',
  'crashed',
] as const
/** One health category. */
export type SessionCategory = (typeof SESSION_CATEGORIES)[number]

/** Rank of a category (index in {@link SESSION_CATEGORIES}); higher is worse. */
export const categoryRank = (c: SessionCategory): number => SESSION_CATEGORIES.indexOf(c)

/** One `session` item, validated. */
export interface SessionUpdate {
  projectId: number
  /** Session id as sent (dashes kept). */
  sid: string
  /** Hashed distinct id (`did`), or null when the session has no user. */
  did: string | null
  release: string
  /** '' when the session has none. */
  environment: string
  /** When the session started, ms. */
  started: number
  /** When this update was made, ms. */
  timestamp: number
  status: string
  errors: number
  /** The category this update alone puts the session in. */
  category: SessionCategory
}

/** One bucket of a `sessions` item: counts of sessions that started in one minute. */
export interface SessionBucket {
  projectId: number
  release: string
  environment: string
  started: number
  did: string | null
  counts: Record<SessionCategory, number>
}

/** The time range (ms, `until` exclusive) and optional environment of a health query. */
export interface HealthRange {
  since: number
  until: number
  environment?: string | undefined
}

/** Session and user counts of a release over a range (categories are exclusive). */
export interface HealthCounts {
  sessions: Record<SessionCategory, number> & { total: number }
  /** Distinct users (`did`), by the worst category each had in the range. */
  users: Record<SessionCategory, number> & { total: number }
}

/** A release with its health over a range. */
export interface ReleaseHealthSummary {
  release: string
  /** First and last hour with sessions, ms. */
  firstSeen: number
  lastSeen: number
  environments: string[]
  counts: HealthCounts
}

/** One hour of a release's health series. */
export interface HealthPoint {
  hour: number
  counts: HealthCounts
}

/** Reads and writes of release health (writes happen inside the ingest transaction). */
export interface ReleaseHealthStore {
  /**
   * Releases with sessions in the range, newest first, a page of them: any client can name a
   * release per session, so a project may hold any number. `next` is the cursor of the
   * following page (an offset into the same order).
   */
  listReleaseHealth(
    projectId: number,
    range: HealthRange,
    page: Page,
  ): Promise<{ releases: ReleaseHealthSummary[]; next?: string }>
  /** The environments with sessions in the range, by name, at most `limit` of them. */
  releaseEnvironments(projectId: number, range: HealthRange, limit: number): Promise<string[]>
  /** Totals and the hourly series of one release; undefined when it has no sessions at all. */
  releaseHealthSeries(
    projectId: number,
    release: string,
    range: HealthRange,
  ): Promise<{ totals: HealthCounts; series: HealthPoint[] } | undefined>
}
