/**
 * The storage interface. SQLite (`sqlite/`) is the embedded default; a PostgreSQL backend
 * implements the same interface. Everything is async so a networked database fits; nothing
 * outside `store/` knows which one runs. Times are Unix milliseconds.
 */
import type { AccountStore, LoginFailureStore, UiSessionStore } from './account-store.ts'
import type { AlertOutboxStore, AlertStore } from './alert-store.ts'
import type { ArtifactStore } from './artifact-types.ts'
import type { ChangeFeed } from './change-feed.ts'
import type { IngestStore } from './ingest-store.ts'
import type { IssueStore, TriageStore } from './issue-store.ts'
import type { LiveStore } from './live-store.ts'
import type { MonitorStore } from './monitor-types.ts'
import type { NoticeChannel } from './notice-channel.ts'
import type { PrivacyStore } from './privacy-types.ts'
import type { ProjectStore } from './project-store.ts'
import type { OutcomeStore, QuotaStore } from './quota-store.ts'
import type { ReleaseFileStore } from './release-file-types.ts'
import type { ReleaseHealthStore } from './release-health-types.ts'
import type { ReleaseStore } from './release-types.ts'
import type { RetentionStore } from './retention-store.ts'
import type { IssueSearchStore, SearchBackfillStore } from './search-types.ts'
import type { TeamStore } from './team-types.ts'
import type { UiReadStore } from './ui-read-store.ts'
import type { AuditStore, UserLifecycleStore } from './user-lifecycle-types.ts'

/** The whole storage interface. */
export interface Store
  extends ProjectStore,
    IngestStore,
    IssueStore,
    AccountStore,
    UiSessionStore,
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
    PrivacyStore,
    IssueSearchStore,
    SearchBackfillStore,
    ArtifactStore,
    ReleaseStore,
    ReleaseFileStore {
  readonly dialect: 'sqlite' | 'postgres'
  /** Configuration changes of every node, for the caches (change-feed.ts). */
  readonly changes: ChangeFeed
  /** Notices between the nodes of one PostgreSQL database (notice-channel.ts); none on SQLite. */
  readonly notices?: NoticeChannel
  /** What the backend's own machinery is doing now, for `/metrics` (per backend, optional). */
  usage?(): StoreUsage
  close(): Promise<void>
}

/** Gauges of a backend's machinery that an operator watches (docs/operations.md). */
export interface StoreUsage {
  /** PostgreSQL: pool connections in use and idle, requests waiting for one, the pool's size. */
  pool?: { inUse: number; idle: number; waiting: number; size: number }
  /** PostgreSQL: reconnects of the change feed's listening connection, last notice's delay (ms). */
  feed?: { reconnects: number; lagMs: number; connected: boolean }
  /** SQLite: seconds the writer thread has been busy since the process started. */
  writerBusySeconds?: number
  /**
   * PostgreSQL: the counter folds this node ran since it started (periodic, for reads), the
   * delta rows they took and the seconds they took (postgres/counter-deltas.ts).
   */
  fold?: { periodic: number; read: number; rows: number; seconds: number }
}
