import { randomUUID } from 'node:crypto'
import { commitAndAnnounce } from '../ingest/commit.ts'
import { type DigestScope, digestEvent, digestScope } from '../ingest/items/event.ts'
import type { LiveBus } from '../live/bus.ts'
import { type FailedRun, failureEvent } from '../schedule/failure-event.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import type { MonitorFailure } from '../store/monitor-types.ts'
import type { Store } from '../store/types.ts'

const MINUTE = 60_000
/** Failures recorded or reported per store call. */
const BATCH = 500
/** Store calls per tick: bounds one tick's work after a long downtime; the next tick goes on. */
const MAX_ROUNDS = 20

/** What the clock needs. */
export interface CronClockDeps {
  store: Store
  committer: GroupCommitter
  bus: LiveBus
  /** Milliseconds between automatic ticks; 0 runs no timer (ticks only on demand). */
  intervalMs: number
  /** How long a lease lasts without renewal (default: 3 intervals, 30 s to 60 s). */
  leaseMs?: number
  /** This node's name in the lease (default: a random id per process). */
  holder?: string
  /** Wall clock, ms (the lease always uses it, whatever time a tick processes). */
  wallClock?: () => number
  log?: { error: (obj: object, msg: string) => void }
}

/** What one tick did. */
export interface TickResult {
  /** Whether this node held the lease (only the holder processes). */
  held: boolean
  /** The time processed, ms. */
  now: number
  /** Missed and overrunning runs recorded by this tick. */
  recorded: number
  /** Ids of the error events written for failures (including ones left over from a crash). */
  events: string[]
}

/**
 * The clock that finds missed and overrunning cron runs. All its state is in the database: the
 * next expected run per monitor environment, open runs with their timeout, and a lease row so
 * that, with several servers on one database, only the node holding the lease processes. A
 * failure is recorded once (missed runs are keyed by environment and expected time) and marked
 * pending until its event is committed, so a crash in between is repaired by the next tick,
 * and the event's derived id makes a second write a duplicate. A run missed while the server was
 * down is found by the first tick after start.
 */
export class CronClock {
  /** Name of the lease row. */
  static readonly LEASE = 'cron-monitors'
  readonly holder: string
  private readonly deps: CronClockDeps
  private readonly leaseMs: number
  private readonly wall: () => number
  private timer: NodeJS.Timeout | undefined
  private queue: Promise<unknown> = Promise.resolve()
  private stopped = false

  constructor(deps: CronClockDeps) {
    this.deps = deps
    this.holder = deps.holder ?? `node-${randomUUID()}`
    // At most a minute: a dead holder is replaced within one lease and one tick.
    this.leaseMs = deps.leaseMs ?? Math.min(60_000, Math.max(30_000, 3 * deps.intervalMs))
    this.wall = deps.wallClock ?? Date.now
  }

  /** Starts ticking: once now (catching up after a restart), then every interval. */
  start(): void {
    this.stopped = false
    if (this.deps.intervalMs > 0 && this.timer === undefined) {
      this.timer = setInterval(() => void this.background(), this.deps.intervalMs)
      this.timer.unref()
    }
    void this.background()
  }

  /** Stops the timer, waits for a running tick, and gives the lease up for another node. */
  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    await this.queue.catch(() => undefined)
    await this.deps.store.releaseLease(CronClock.LEASE, this.holder)
  }

  /** Processes time up to `now` (default: the wall clock). Ticks run one at a time. */
  tick(now: number = this.wall()): Promise<TickResult> {
    const run = this.queue.catch(() => undefined).then(() => this.process(now))
    this.queue = run
    return run
  }

  private async background(): Promise<void> {
    if (this.stopped) return
    try {
      await this.tick()
    } catch (err) {
      this.deps.log?.error({ err }, 'cron clock tick failed')
    }
  }

  private async process(now: number): Promise<TickResult> {
    const { store } = this.deps
    const held = await store.acquireLease(CronClock.LEASE, this.holder, this.wall(), this.leaseMs)
    if (!held) return { held: false, now, recorded: 0, events: [] }
    let recorded = 0
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const n = await store.recordMonitorFailures(now, BATCH)
      recorded += n
      if (n === 0) break
    }
    const events = await this.report(now)
    await store.noteTick(CronClock.LEASE, this.holder, now)
    return { held: true, now, recorded, events }
  }

  /** Writes the error events of pending failures, one group commit per project and batch. */
  private async report(now: number): Promise<string[]> {
    const { store } = this.deps
    const written: string[] = []
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const failures = await store.pendingMonitorFailures(BATCH)
      const byProject = new Map<number, MonitorFailure[]>()
      for (const f of failures)
        byProject.set(f.projectId, [...(byProject.get(f.projectId) ?? []), f])
      for (const [projectId, list] of byProject) {
        const scope = await this.scopeOf(projectId, now)
        if (scope !== undefined) {
          const events = list.map(
            (f) => digestEvent(failureEvent(eventOf(f)), scope, f.eventId).row,
          )
          await commitAndAnnounce(this.deps, projectId, { events, outcomes: [] })
          written.push(...events.map((e) => e.eventId))
        }
        await store.markMonitorFailuresReported(list.map((f) => f.runId))
      }
      if (failures.length < BATCH) break
    }
    return written
  }

  /**
   * The digest scope of events the server makes for a project: its default key (the first
   * key without a component, else its first key; none left: key id 0), received now, no
   * client address. Undefined when the project is gone.
   */
  private async scopeOf(projectId: number, now: number): Promise<DigestScope | undefined> {
    const { store } = this.deps
    if ((await store.getProject(projectId)) === undefined) return undefined
    const keys = await store.listKeys(projectId)
    const found = keys.find((k) => k.component === null) ?? keys[0]
    return digestScope(projectId, found?.id ?? 0, null, now, null)
  }
}

/** The failed-run description of a recorded failure. */
function eventOf(f: MonitorFailure): FailedRun {
  const at =
    f.kind === 'missed'
      ? (f.expectedTime ?? f.detectedAt) + f.checkinMargin * MINUTE
      : f.dateAdded + f.maxRuntime * MINUTE
  return {
    kind: f.kind,
    slug: f.slug,
    environment: f.environment,
    release: f.release,
    checkInId: f.checkInId,
    at,
    schedule: f.schedule,
    timezone: f.timezone,
    checkinMargin: f.checkinMargin,
    maxRuntime: f.maxRuntime,
    expectedTime: f.expectedTime,
    startedAt: f.kind === 'timeout' ? f.dateAdded : null,
  }
}
