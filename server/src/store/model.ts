/**
 * The records the storage interface reads and writes, shared by every concern's interface
 * (`*-store.ts`, `*-types.ts`). Imports nothing, so no concern file can form a cycle through it.
 * Times are Unix milliseconds.
 */

/** A scope of an API token; each includes the ones before it (`read` ⊂ `write` ⊂ `admin`). */
export type TokenScope = 'read' | 'write' | 'admin'

/** A project: the unit DSNs, issues and quotas belong to. */
export interface Project {
  id: number
  slug: string
  name: string
  createdAt: number
  /** The team that owns the project (access: `accounts/permissions.ts`). */
  teamId: number
}

/** A DSN key. `component` is null for the project's default key. */
export interface ProjectKey {
  id: number
  projectId: number
  publicKey: string
  label: string
  component: string | null
  createdAt: number
  revokedAt: number | null
}

/** Issue statuses. */
export type IssueStatus = 'unresolved' | 'resolved' | 'ignored'

/** An issue: the group of events sharing a grouping hash. */
export interface Issue {
  id: number
  projectId: number
  title: string
  culprit: string
  level: string
  type: string | null
  value: string | null
  status: IssueStatus
  firstSeen: number
  lastSeen: number
  timesSeen: number
  groupingVersion: string
  /** In the For review queue: new or regressed (or back from ignoring), not yet triaged. */
  forReview: boolean
  /** Ignored until this time (ms), when status is `ignored`. */
  ignoreUntil: number | null
  /** Ignored until `timesSeen` reaches this, when status is `ignored`. */
  ignoreUntilSeen: number | null
  /** Distinct users of its events (the `user` tag's values); 0 when none said who. */
  users: number
}

/** An event ready to be written: normalised, grouped, with its indexed columns extracted. */
export interface EventToWrite {
  projectId: number
  keyId: number
  eventId: string
  /** When the event happened (client clock), ms. */
  timestamp: number
  /** When the server received it, ms. */
  received: number
  level: string
  title: string
  culprit: string
  type: string | null
  value: string | null
  release: string | null
  environment: string | null
  component: string | null
  hash: string
  groupingVersion: string
  /**
   * The hash an earlier grouping rule gave the event, when it differs (grouping/index.ts): an
   * event whose `hash` has no issue yet joins the issue of this one, and `hash` is recorded
   * for that issue.
   */
  previousHash?: string
  /**
   * The normalised event JSON as text, or already in its stored form (store/payload-codec.ts)
   * as the digest threads hand it over, passed on to the store as it is.
   */
  payload: string | Uint8Array
  /**
   * The search tags (search/event-tags.ts), bounded by the digest; none when absent (rows
   * built by hand, check-ins). Aggregated per issue in `issue_tags`, kept per event in
   * `events.search`.
   */
  tags?: [string, string][]
  /** The event's free text for search (search/event-tags.ts), bounded by the digest. */
  text?: string
}

/** What writing one event did. */
export interface EventWriteResult {
  eventId: string
  issueId: number
  /** The (project, event_id) was stored before: nothing changed. */
  duplicate: boolean
  issueCreated: boolean
  /** The event reopened a resolved issue. */
  regressed: boolean
  /**
   * The stored row's id, where the backend reads it back with the insert at no extra cost
   * (PostgreSQL): the live feed names the event's notice with it without looking it up.
   */
  rowId?: number
}

/** One increment of an outcome counter (per project, key, hour, outcome, reason, category). */
export interface OutcomeDelta {
  projectId: number
  keyId: number
  /** Any time inside the hour; the store truncates. */
  at: number
  outcome: string
  reason: string
  category: string
  quantity: number
}

/** Summed outcome counters. */
export interface OutcomeTotal {
  outcome: string
  reason: string
  category: string
  quantity: number
}

/** Paging for list reads. */
export interface Page {
  limit: number
  /** Opaque cursor from a previous page. */
  cursor?: string | undefined
}

/** A user account of the web UI and API. */
export interface User {
  id: number
  email: string
  passwordHash: string
  isAdmin: boolean
  createdAt: number
  /** When an admin deactivated the account (its sessions and tokens are refused), else null. */
  deactivatedAt: number | null
}

/** An API token row (only the hash of the secret is stored). */
export interface ApiToken {
  id: number
  userId: number
  name: string
  createdAt: number
  revokedAt: number | null
  /** What the token may do at most, below its user's roles (`accounts/permissions.ts`). */
  scopes: TokenScope[]
}

/** An event quota: at most `events` event items per fixed window of `windowSeconds`. */
export interface Quota {
  events: number
  windowSeconds: number
}

/** What a unit's events met at the quota, for its answer (429 or rate-limit headers). */
export interface UnitQuota {
  /** Events of the unit refused for quota: neither stored nor counted as accepted. */
  refused: number
  /** End of the window the unit was charged in, ms. */
  windowEnd: number
  /** Something was refused in that window (this unit or an earlier one, on any node). */
  limited: boolean
}
