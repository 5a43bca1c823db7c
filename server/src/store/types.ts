/**
 * The storage interface. SQLite (`sqlite/`) is the embedded default; a PostgreSQL backend
 * implements the same interface. Everything is async so a networked database fits; nothing
 * outside `store/` knows which one runs. Times are Unix milliseconds.
 */

/** A project: the unit DSNs, issues and quotas belong to. */
export interface Project {
  id: number
  slug: string
  name: string
  createdAt: number
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
  /** The normalised event JSON. */
  payload: string
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
}

/** The results of one unit, in the order of its events. */
export interface WriteUnitResult {
  events: EventWriteResult[]
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
}

/** An API token row (only the hash of the secret is stored). */
export interface ApiToken {
  id: number
  userId: number
  name: string
  createdAt: number
  revokedAt: number | null
}

/** Projects and their DSN keys. */
export interface ProjectStore {
  createProject(
    name: string,
    slug: string,
    publicKey: string,
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
  createToken(userId: number, name: string, tokenHash: string): Promise<ApiToken>
  findToken(tokenHash: string): Promise<(ApiToken & { user: User }) | undefined>
  listTokens(userId: number): Promise<ApiToken[]>
  revokeToken(userId: number, tokenId: number): Promise<boolean>
}

/** The whole storage interface. */
export interface Store extends ProjectStore, IngestStore, IssueStore, AccountStore {
  readonly dialect: 'sqlite' | 'postgres'
  close(): Promise<void>
}
