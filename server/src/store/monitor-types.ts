/**
 * Storage types of cron monitors: monitors (created and updated by the `monitor_config` of
 * check-ins), their per-environment state, the check-in history, and the lease that lets one
 * node run the clock (protocol.md §6.4, §9).
 */
import type { ConfigResult, Schedule } from '../schedule/schedule.ts'
import type { EventToWrite, Page } from './model.ts'

/** Statuses a client may send. */
export type CheckInStatus = 'in_progress' | 'ok' | 'error'
/** Statuses of a stored run: the client's plus what the clock records. */
export type RunStatus = CheckInStatus | 'missed' | 'timeout'
/** A monitor environment's state: `active` until its first closed run, then the last outcome. */
export type MonitorEnvStatus = 'active' | 'ok' | 'error' | 'missed' | 'timeout'

/** One validated `check_in` item. */
export interface CheckInToWrite {
  projectId: number
  keyId: number
  /** Receive time, ms. */
  received: number
  /** 32 hex; all zeros means "the newest open run of this monitor and environment". */
  checkInId: string
  /** Id for a new run when an all-zero id finds no open run. */
  freshId: string
  slug: string
  status: CheckInStatus
  environment: string
  durationMs: number | null
  release: string | null
  traceId: string | null
  /** The item's `monitor_config`, validated, when it had one. */
  config: ConfigResult | undefined
  /** The error event an `error` check-in becomes (written only if the run is recorded). */
  failure?: EventToWrite
}

/** One environment of a monitor and its schedule state. */
export interface MonitorEnvironment {
  id: number
  environment: string
  status: MonitorEnvStatus
  lastCheckIn: number | null
  /** The next run the schedule expects, ms; null until the first check-in. */
  nextCheckIn: number | null
  /** `nextCheckIn` + margin: after this the run is missed. */
  nextCheckInLatest: number | null
  /** Consecutive failed runs (error, missed, timeout). */
  failures: number
}

/** A cron monitor. */
export interface Monitor {
  id: number
  projectId: number
  slug: string
  schedule: Schedule
  timezone: string
  checkinMargin: number
  maxRuntime: number
  failureIssueThreshold: number
  recoveryThreshold: number
  createdAt: number
  updatedAt: number
  environments: MonitorEnvironment[]
}

/** One run in a monitor's history. */
export interface CheckInRecord {
  checkInId: string
  environment: string
  status: RunStatus
  /** When the run started (received time minus duration for closing-only check-ins), ms. */
  dateAdded: number
  dateUpdated: number
  /** The scheduled time this run was expected at, ms. */
  expectedTime: number | null
  timeoutAt: number | null
  durationMs: number | null
  release: string | null
  /** The error event the run became (error, missed, timeout). */
  eventId: string | null
}

/** A missed or overrunning run recorded by the clock whose error event is still to be written. */
export interface MonitorFailure {
  /** Row id of the run, for {@link MonitorStore.markMonitorFailuresReported}. */
  runId: number
  kind: 'missed' | 'timeout'
  eventId: string
  projectId: number
  slug: string
  environment: string
  schedule: Schedule
  timezone: string
  checkinMargin: number
  maxRuntime: number
  checkInId: string
  expectedTime: number | null
  dateAdded: number
  release: string | null
  /** When the clock recorded the failure, ms. */
  detectedAt: number
}

/** The lease row of a background clock. */
export interface ClockLease {
  name: string
  holder: string
  expiresAt: number
  /** The latest `now` a holder processed, ms. */
  lastTick: number
}

/** Monitor reads, and the clock's state in the database (so restarts and other nodes see it). */
export interface MonitorStore {
  listMonitors(projectId: number): Promise<Monitor[]>
  getMonitor(projectId: number, slug: string): Promise<Monitor | undefined>
  /** A monitor's runs, newest first. */
  listCheckIns(
    monitorId: number,
    filter: { environment?: string | undefined },
    page: Page,
  ): Promise<{ checkIns: CheckInRecord[]; next?: string }>
  /**
   * Takes or renews the lease `name` for `holder` until `now + ttlMs` (wall-clock ms); false
   * while another holder's lease has not expired.
   */
  acquireLease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean>
  /** Records the latest time the lease holder processed (never moves backwards). */
  noteTick(name: string, holder: string, tick: number): Promise<void>
  /** Gives the lease up (on shutdown) so another node can take over at once. */
  releaseLease(name: string, holder: string): Promise<void>
  getLease(name: string): Promise<ClockLease | undefined>
  /**
   * Records every run that is missed or overrunning at `now` (each once: missed runs are keyed
   * by environment and expected time) and advances the schedules; returns how many it
   * recorded, at most about `limit` per call.
   */
  recordMonitorFailures(now: number, limit: number): Promise<number>
  /** Recorded failures whose error event has not been confirmed written. */
  pendingMonitorFailures(limit: number): Promise<MonitorFailure[]>
  /** Marks failures as reported once their events are committed. */
  markMonitorFailuresReported(runIds: number[]): Promise<void>
}
