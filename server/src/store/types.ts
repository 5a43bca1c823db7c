import type { ArtifactStore } from './artifact-types.ts'
import type { ChangeFeed } from './change-feed.ts'
/**
 * The storage interface. SQLite (`sqlite/`) is the embedded default; a PostgreSQL backend
 * implements the same interface. Everything is async so a networked database fits; nothing
 * outside `store/` knows which one runs. Times are Unix milliseconds.
 */
import type { CheckInToWrite, MonitorStore } from './monitor-types.ts'
import type { UnitQuota } from './quota-rules.ts'
import type { ReleaseHealthStore, SessionBucket, SessionUpdate } from './release-health-types.ts'
import type { TeamStore, TokenScope } from './team-types.ts'
import type { AuditStore, UserLifecycleStore } from './user-lifecycle-types.ts'

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
   * The normalised event JSON as text, or already in its stored form (store/payload-codec.ts)
   * as the digest threads hand it over, passed on to the store as it is.
   */
  payload: string | Uint8Array
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

/** One unit of the group commit: everything one request writes. */
export interface WriteUnit {
  events: EventToWrite[]
  outcomes: OutcomeDelta[]
  /** Release health: single-session updates and pre-aggregated buckets (issue 4). */
  sessions?: SessionUpdate[]
  sessionBuckets?: SessionBucket[]
  /** Cron check-ins; an `error` run's event is added to the unit's results (issue 4). */
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
  /** Each item's bytes and, when it wins over the payload's, the envelope header's event id. */
  items: { payload: Uint8Array; headerId: string | null }[]
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

/** Filters for the issue list. */
export interface IssueFilter {
  status?: IssueStatus | undefined
  query?: string | undefined
  environment?: string | undefined
  release?: string | undefined
  component?: string | undefined
  /** true: only unresolved issues in the For review queue; false: only those out of it. */
  forReview?: boolean | undefined
}

/** A stored event as read back. */
export interface StoredEvent {
  eventId: string
  issueId: number
  projectId: number
  received: number
  component: string | null
  payload: string
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

/** Projects and their DSN keys. */
export interface ProjectStore {
  createProject(
    name: string,
    slug: string,
    publicKey: string,
    /** Default: the default team. */
    teamId?: number,
  ): Promise<{ project: Project; key: ProjectKey }>
  listProjects(): Promise<Project[]>
  getProject(id: number): Promise<Project | undefined>
  createKey(
    projectId: number,
    label: string,
    component: string | null,
    publicKey: string,
  ): Promise<ProjectKey>
  listKeys(projectId: number): Promise<ProjectKey[]>
  revokeKey(projectId: number, keyId: number): Promise<boolean>
  findKey(publicKey: string): Promise<ProjectKey | undefined>
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

/** Reads for the API and UI. */
export interface IssueStore {
  listIssues(
    projectId: number,
    filter: IssueFilter,
    page: Page,
  ): Promise<{ issues: Issue[]; next?: string }>
  getIssue(id: number): Promise<Issue | undefined>
  setIssueStatus(id: number, status: IssueStatus): Promise<boolean>
  listIssueEvents(issueId: number, page: Page): Promise<{ events: StoredEvent[]; next?: string }>
  getEvent(projectId: number, eventId: string): Promise<StoredEvent | undefined>
  outcomeTotals(projectId: number, since: number, until: number): Promise<OutcomeTotal[]>
}

/** Accounts: users and API tokens. */
export interface AccountStore {
  countUsers(): Promise<number>
  createUser(email: string, passwordHash: string, isAdmin: boolean): Promise<User>
  findUserByEmail(email: string): Promise<User | undefined>
  getUser(id: number): Promise<User | undefined>
  /** `scopes` default: all of them (the token can do what its user can). */
  createToken(
    userId: number,
    name: string,
    tokenHash: string,
    scopes?: readonly TokenScope[],
  ): Promise<ApiToken>
  findToken(tokenHash: string): Promise<(ApiToken & { user: User }) | undefined>
  listTokens(userId: number): Promise<ApiToken[]>
  revokeToken(userId: number, tokenId: number): Promise<boolean>
}

/** An event quota: at most `events` event items per fixed window of `windowSeconds`. */
export interface Quota {
  events: number
  windowSeconds: number
}

/** Which outcome counters to read: a time range (ms, whole hours) and optionally some keys. */
export interface OutcomeFilter {
  since: number
  until: number
  /** Only counters of these key ids (0 = requests with no valid key); undefined = all. */
  keyIds?: number[] | undefined
}

/** Summed outcome counters of one hour (`hour` = its start, ms). */
export interface OutcomeHourTotal extends OutcomeTotal {
  hour: number
}

/** Event quotas and the dedupe probe the quota check needs (issue 3). */
export interface QuotaStore {
  getQuota(projectId: number): Promise<Quota | null>
  setQuota(projectId: number, quota: Quota | null): Promise<void>
  /** Which of these event ids the project already stored (one indexed read). */
  existingEventIds(projectId: number, eventIds: readonly string[]): Promise<Set<string>>
}

/** Outcome counter reads for the Outcomes view. */
export interface OutcomeStore {
  outcomeTotalsBy(projectId: number, filter: OutcomeFilter): Promise<OutcomeTotal[]>
  outcomeHours(projectId: number, filter: OutcomeFilter): Promise<OutcomeHourTotal[]>
}

/** A signed-in browser session of the web UI (the cookie secret itself is never stored). */
export interface UiSession {
  id: number
  userId: number
  /** Per-session CSRF token every UI form carries in a hidden field. */
  csrfToken: string
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

/** Web UI sessions, looked up by the SHA-256 of the cookie secret (issue 7a). */
export interface SessionStore {
  createSession(
    userId: number,
    tokenHash: string,
    csrfToken: string,
    now: number,
    expiresAt: number,
  ): Promise<UiSession>
  /** The live session (not expired at `now`) and its user. */
  findSession(tokenHash: string, now: number): Promise<(UiSession & { user: User }) | undefined>
  touchSession(id: number, now: number, expiresAt: number): Promise<void>
  deleteSession(tokenHash: string): Promise<void>
  deleteExpiredSessions(now: number): Promise<number>
}

/** Failed sign-ins under one throttle key: how many in a row and the last one's time, ms. */
export interface LoginFailures {
  count: number
  last: number
}

/** The sign-in throttle's counters, shared by every node (ui/login-throttle.ts decides). */
export interface LoginFailureStore {
  /** The failures of these keys whose last one is at or after `since`. */
  loginFailures(keys: readonly string[], since: number): Promise<Map<string, LoginFailures>>
  /** Adds one failure at `now` to each key; a key idle since before `since` starts again at 1. */
  recordLoginFailure(keys: readonly string[], now: number, since: number): Promise<void>
  /** Forgets the keys (a successful sign-in). */
  clearLoginFailures(keys: readonly string[]): Promise<void>
}

/** A count over one time bucket (`start` in ms). */
export interface TimeBucket {
  start: number
  count: number
}

/** Distinct filter values of a project's recent events. */
export interface ProjectFacets {
  environments: string[]
  releases: string[]
  components: string[]
}

/** Neighbouring events of one event inside its issue (event ids). */
export interface EventNeighbours {
  newer?: string
  older?: string
  newest?: string
  oldest?: string
}

/**
 * Tab counts stop counting past this many issues: a count walks one index entry per issue, so an
 * exact count of a million issues would hold the thread for about as long as a list of them.
 * Sentry's issue stream caps its hit counts the same way (`max_hits`, shown as "1000+").
 */
export const ISSUE_COUNT_CAP = 10_000

/** Reads only the web UI needs: charts, filter choices, tab counts and event stepping (7a). */
export interface UiReadStore {
  /** Events of an issue per bucket of `bucketMs` ms received at or after `since`, oldest first. */
  issueHistogram(issueId: number, since: number, bucketMs: number): Promise<TimeBucket[]>
  /** Environments, releases and components the project's issues have seen (at most 200 each). */
  projectFacets(projectId: number): Promise<ProjectFacets>
  /** Issues per status, each counted up to `ISSUE_COUNT_CAP + 1` (shown as "10,000+"). */
  issueCountsByStatus(projectId: number): Promise<Record<IssueStatus, number>>
  eventNeighbours(issueId: number, eventId: string): Promise<EventNeighbours>
}

/** A change of triage state for one or many issues (`PUT` of an issue, the bulk `PUT`). */
export interface IssueChange {
  status?: IssueStatus | undefined
  /** With status `ignored`: ignored until this time (ms), then back to For review. */
  ignoreUntil?: number | undefined
  /** With status `ignored`: ignored until it is seen this many more times. */
  ignoreCount?: number | undefined
  /** true takes issues out of the For review queue; false puts unresolved ones back in. */
  reviewed?: boolean | undefined
}

/** Triage writes: status, the For review queue and ignore conditions (issue 7b). */
export interface TriageStore {
  /** Applies a change to those of `ids` that belong to the project; returns them, updated. */
  triageIssues(projectId: number, ids: readonly number[], change: IssueChange): Promise<Issue[]>
  /** Ignored issues whose ignore time passed at `now` go back to unresolved and For review. */
  expireIgnores(now: number): Promise<number>
  /**
   * How many of a project's issues wait in the For review queue (the UI's tab count), counted up
   * to `ISSUE_COUNT_CAP + 1`.
   */
  countForReview(projectId: number): Promise<number>
}

/** A stored event as the live stream names it: its row id is the stream's resumable id. */
export interface LiveEventRow {
  /** The event's row id: the same on every node, ascending in commit order on SQLite. */
  id: number
  issueId: number
  eventId: string
}

/** Reads behind the live stream (live/): notice ids of new events and the replay on resume. */
export interface LiveStore {
  /** The row ids of stored events of one project, by event id (missing ones are left out). */
  liveEventIds(projectId: number, eventIds: readonly string[]): Promise<LiveEventRow[]>
  /** The newest `limit` events of a project with a row id above `afterId`, ascending. */
  liveEventsAfter(projectId: number, afterId: number, limit: number): Promise<LiveEventRow[]>
}

/** What fires an alert rule. */
export type AlertCondition =
  | { type: 'new_issue' }
  | { type: 'regression' }
  | { type: 'frequency'; threshold: number; windowMinutes: number }

/** Where an alert rule sends. */
export type AlertChannel =
  | { type: 'webhook'; url: string; format: 'json' | 'slack' }
  | { type: 'email'; to: string[] }

/** A project's alert rule: any of its conditions sends one alert to its channel. */
export interface AlertRule {
  id: number
  projectId: number
  name: string
  conditions: AlertCondition[]
  channel: AlertChannel
  createdAt: number
}

/** Which condition made a delivery. */
export type AlertTriggerKind = AlertCondition['type']

/** Delivery states: pending (due or waiting to retry), sent, failed (given up or cancelled). */
export type DeliveryStatus = 'pending' | 'sent' | 'failed'

/** A delivery to write down; (rule, issue, trigger kind, trigger id) makes it unique. */
export interface NewDelivery {
  ruleId: number
  projectId: number
  issueId: number
  triggerKind: AlertTriggerKind
  /** `first` for a new issue, the event id for a regression, the window for a frequency. */
  triggerId: string
  eventId: string | null
  /** The rule's channel when the alert fired. */
  channel: AlertChannel
  /** The alert's content (JSON), fixed when the delivery is written down. */
  message: string
  at: number
}

/** One delivery of the log (the outbox the alert worker drains). */
export interface AlertDelivery extends Omit<NewDelivery, 'at'> {
  id: number
  ruleName: string
  status: DeliveryStatus
  attempts: number
  lastError: string | null
  nextAttemptAt: number
  createdAt: number
  updatedAt: number
  sentAt: number | null
}

/** How one send attempt ended; `retryAt` null gives up (status `failed`). */
export type AttemptResult =
  | { ok: true; at: number }
  | { ok: false; at: number; error: string; retryAt: number | null }

/** Alert rules and the delivery outbox shared by every server node (issue 7b). */
export interface AlertStore {
  createAlertRule(
    projectId: number,
    rule: Pick<AlertRule, 'name' | 'conditions' | 'channel'>,
    now: number,
  ): Promise<AlertRule>
  listAlertRules(projectId: number): Promise<AlertRule[]>
  /** Deletes a rule and cancels its pending deliveries; false when there is no such rule. */
  deleteAlertRule(projectId: number, ruleId: number, now: number): Promise<boolean>
  /** Events of an issue received at or after `since`, counting no further than `cap`. */
  countIssueEvents(issueId: number, since: number, cap: number): Promise<number>
  /** When the rule last made a delivery of this kind for the issue (ms), if ever. */
  lastDeliveryAt(ruleId: number, issueId: number, kind: AlertTriggerKind): Promise<number | null>
  /** Writes deliveries down; ones whose unique key exists are skipped. Returns those created. */
  enqueueDeliveries(rows: readonly NewDelivery[]): Promise<AlertDelivery[]>
  /** Atomically leases up to `limit` due deliveries to `workerId` until `now + leaseMs`. */
  claimDeliveries(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<AlertDelivery[]>
  /** Records an attempt of a delivery this worker holds; false when it no longer holds it. */
  finishAttempt(id: number, workerId: string, result: AttemptResult): Promise<boolean>
  /** Gives a claimed delivery back untried (shutdown), due again at once. */
  releaseDelivery(id: number, workerId: string): Promise<void>
  /** The delivery log of a project, newest first, keyset-paged by id. */
  listDeliveries(
    projectId: number,
    filter: { status?: DeliveryStatus | undefined; issueId?: number | undefined },
    page: Page,
  ): Promise<{ deliveries: AlertDelivery[]; next?: string }>
}

/** An alert decision the ingest transaction recorded, leased to one node's worker. */
export interface PendingAlert {
  id: number
  ruleId: number
  projectId: number
  issueId: number
  kind: AlertTriggerKind
  triggerId: string
  eventId: string
}

/** The outbox of alert decisions (store/alert-decisions.ts writes it in the ingest transaction). */
export interface AlertOutboxStore {
  /** Leases up to `limit` decisions nobody holds (or whose lease lapsed) until `now + leaseMs`. */
  claimAlertDecisions(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<PendingAlert[]>
  /** Removes a decision whose delivery is written down (or that can no longer be sent). */
  finishAlertDecision(id: number): Promise<void>
}

/** Rows removed by one retention batch, per kind (retention.ts). */
export interface PruneResult {
  events: number
  sessions: number
  outcomes: number
  /**
   * Rows a backend keeps beside its events and removes with them, if any: the issue chart's
   * hours (`issue_hours`), PostgreSQL's idempotency keys (`event_ids`). Counted so the sweep
   * goes on while they have a backlog, even after the events themselves are gone.
   */
  derived?: number
}

/**
 * Removes data older than the retention cutoff in small batches: events (issues and their
 * `times_seen` stay), single health sessions and their hourly rollups, outcome counters.
 */
export interface RetentionStore {
  /** Deletes at most `limit` rows of each kind older than `cutoff` (epoch ms). */
  pruneBefore(cutoff: number, limit: number): Promise<PruneResult>
}

/** The whole storage interface. */
export interface Store
  extends ProjectStore,
    IngestStore,
    IssueStore,
    AccountStore,
    SessionStore,
    LoginFailureStore,
    UiReadStore,
    QuotaStore,
    OutcomeStore,
    TriageStore,
    AlertStore,
    AlertOutboxStore,
    ReleaseHealthStore,
    MonitorStore,
    RetentionStore,
    LiveStore,
    UserLifecycleStore,
    AuditStore,
    TeamStore,
    ArtifactStore {
  readonly dialect: 'sqlite' | 'postgres'
  /** Configuration changes of every node, for the caches (change-feed.ts). */
  readonly changes: ChangeFeed
  close(): Promise<void>
}
