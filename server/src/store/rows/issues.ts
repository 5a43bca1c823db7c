/**
 * Issue and event rows as both stores read them, their mapping to the store types, and the
 * issue list's keyset cursor; shared so the SQLite and PostgreSQL stores cannot differ.
 */

import { eventSearchString } from '../../search/event-tags.ts'
import type { FoundIssue } from '../grouping-upsert.ts'
import type { StoredEvent } from '../issue-store.ts'
import type { EventToWrite, Issue, IssueStatus } from '../model.ts'
import { encodePayload, readStoredPayload } from '../payload-codec.ts'

/** An `issues` row. */
export interface IssueRow {
  id: number
  project_id: number
  title: string
  culprit: string
  level: string
  type: string | null
  value: string | null
  status: IssueStatus
  first_seen: number
  last_seen: number
  times_seen: number
  grouping_version: string
  for_review: number
  ignore_until: number | null
  ignore_until_seen: number | null
  /** Distinct users (migration 014 / 009); bigint text on PostgreSQL. */
  users: number | string
}

/** An `events` row as the event reads return it. */
export interface EventRow {
  id: number
  event_id: string
  issue_id: number
  project_id: number
  received: number
  component: string | null
  /** The encoded payload (payload-codec.ts); a string on SQLite rows written before the codec. */
  payload: string | Uint8Array
}

/** Maps an issue row to the interface type. */
export const toIssue = (r: IssueRow): Issue => ({
  id: r.id,
  projectId: r.project_id,
  title: r.title,
  culprit: r.culprit,
  level: r.level,
  type: r.type,
  value: r.value,
  status: r.status,
  firstSeen: r.first_seen,
  lastSeen: r.last_seen,
  timesSeen: r.times_seen,
  groupingVersion: r.grouping_version,
  forReview: r.for_review === 1,
  ignoreUntil: r.ignore_until,
  ignoreUntilSeen: r.ignore_until_seen,
  users: Number(r.users ?? 0),
})

/** Maps an event row to the store's `StoredEvent`: the one place a stored payload is decoded. */
export const toEvent = (r: EventRow): StoredEvent => ({
  eventId: r.event_id,
  issueId: r.issue_id,
  projectId: r.project_id,
  received: r.received,
  component: r.component,
  payload: readStoredPayload(r.payload),
})

/** Keyset cursor `lastSeen:id` for the issue list (stable under inserts). */
export function decodeCursor(cursor: string | undefined): [number, number] | undefined {
  if (cursor === undefined) return undefined
  const [a, b] = cursor.split(':').map(Number)
  return Number.isSafeInteger(a) && Number.isSafeInteger(b) ? [a as number, b as number] : undefined
}

/** A grouping hash with the triage columns of its issue, as the ingest's hash lookup reads it. */
export interface HashedIssueRow {
  issue_id: number
  status: IssueStatus
  for_review: number
  ignore_until: number | null
  ignore_until_seen: number | null
  times_seen: number
  /** The grouping version that recorded the hash. */
  hash_version: string
}

/** The columns of a {@link HashedIssueRow}, from `grouphashes g JOIN issues i`. */
export const HASHED_ISSUE_COLUMNS =
  'g.issue_id, i.status, i.for_review, i.ignore_until, i.ignore_until_seen, i.times_seen, g.grouping_version AS hash_version'

/** A hash lookup's row as the grouping rule takes it (grouping-upsert.ts). */
export const toFoundIssue = (h: HashedIssueRow | undefined): FoundIssue | undefined =>
  h === undefined
    ? undefined
    : {
        issueId: h.issue_id,
        status: h.status,
        forReview: h.for_review === 1,
        ignoreUntil: h.ignore_until,
        ignoreUntilSeen: h.ignore_until_seen,
        timesSeen: h.times_seen,
        hashVersion: h.hash_version,
      }

/** The columns of one `events` row, in insert order. */
export type EventParams = [
  projectId: number,
  eventId: string,
  issueId: number,
  keyId: number,
  timestamp: number,
  received: number,
  level: string,
  release: string | null,
  environment: string | null,
  component: string | null,
  payload: Uint8Array,
  search: string | null,
]

/**
 * One stored event's values in the column order both backends insert (`project_id, event_id,
 * issue_id, key_id, timestamp, received, level, release, environment, component, payload,
 * search`).
 * A JSON payload is encoded here (events the main thread digests: cron failures, OTLP error
 * records); event items come already encoded from the digest threads (ingest/digest-pool.ts).
 */
export const eventInsertValues = (e: EventToWrite, issueId: number): EventParams => [
  e.projectId,
  e.eventId,
  issueId,
  e.keyId,
  e.timestamp,
  e.received,
  e.level,
  e.release,
  e.environment,
  e.component,
  typeof e.payload === 'string' ? encodePayload(e.payload) : e.payload,
  e.tags === undefined ? null : eventSearchString(e.tags, e.type, e.value),
]
