import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import { boundedLabel, LabelCap } from './labels.ts'

/** One outcome increment as the store summed it (store/types.ts `OutcomeDelta`). */
export interface CountedOutcome {
  projectId: number
  outcome: string
  reason: string
  category: string
  quantity: number
}

/** What a PostgreSQL or SQLite backend reports about itself (store/types.ts `StoreUsage`). */
export interface BackendUsage {
  pool?: { inUse: number; idle: number; waiting: number; size: number }
  feed?: { reconnects: number; lagMs: number; connected: boolean }
  writerBusySeconds?: number
  fold?: { periodic: number; read: number; rows: number; seconds: number }
}

/**
 * Values read only when Prometheus scrapes: the parts that already keep them (admission
 * controller, in-flight limit, disk guard, store, cron clock) are asked then, so serving
 * requests costs nothing for them.
 */
export interface ScrapeSources {
  /** Ingest units admitted and not yet answered, and the bound that sheds above it. */
  queue?: () => { units: number; bound: number }
  /** Ingest requests in flight and the adaptive limit. */
  inflight?: () => { inflight: number; limit: number }
  /** Requests shed since start: before routing, and by the admission controller. */
  shed?: () => { early: number; admission: number }
  /** Whether the disk guard refuses new data now. */
  diskLow?: () => boolean
  /** The store backend's machinery. */
  backend?: () => BackendUsage | undefined
  /** Seconds since the cron clock last finished a tick, and failures it recorded. */
  cron?: () => { lagSeconds: number; recorded: number }
}

/**
 * A counter whose value a part of the process already keeps as a running total (the store's
 * reconnects, folds): set to that total at each scrape; absent while `total` gives undefined.
 */
function totalCounter(
  registers: Registry[],
  name: string,
  help: string,
  total: () => number | undefined,
): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      const n = total()
      if (n === undefined) return
      this.reset()
      this.inc(n)
    },
  })
}

let processMetrics: Registry | undefined

/**
 * Process metrics (CPU, memory, heap, GC, event-loop delay with its percentiles, handles):
 * one registry per process, made on first use, since they describe the process and their
 * collectors (a loop-delay histogram, a GC observer) should run once however many apps a
 * process builds (tests build many).
 */
function processRegistry(): Registry {
  if (processMetrics === undefined) {
    processMetrics = new Registry()
    collectDefaultMetrics({ register: processMetrics })
  }
  return processMetrics
}

/** Ingest endpoints by route, for the `endpoint` label (anything else: `other`). */
function endpointOf(route: string): string {
  if (route.endsWith('/envelope/')) return 'envelope'
  if (route.endsWith('/store/')) return 'store'
  if (route.includes('otlp')) return 'otlp_logs'
  return 'other'
}

/** Most distinct outcome label sets kept; later ones are counted under `other`. */
const MAX_OUTCOME_SERIES = 500

/**
 * The server's Prometheus instruments, one registry per app (tests run several apps in one
 * process). Counters move where the work is already summed: once per group commit for
 * outcomes (the same sums the store wrote), once per answered ingest request, once per alert
 * delivery attempt, retention batch or cron tick; gauges are read at scrape time. Label values
 * are bounded: client-chosen strings (client-report reasons and categories) are reduced to a
 * safe shape and a capped set, and project ids become a label only when the operator asks for
 * it, for at most `projectLabels` projects.
 */
export class Metrics {
  readonly registry = new Registry()
  private readonly requests: Counter<'endpoint' | 'status'>
  private readonly outcomes: Counter<string>
  private readonly commitUnits: Histogram<string>
  private readonly commitSeconds: Histogram<string>
  private readonly deliveries: Counter<'channel' | 'result'>
  private readonly retention: Counter<'kind'>
  private readonly requestChildren = new Map<string, Counter.Internal>()
  private readonly outcomeChildren = new Map<string, Counter.Internal>()
  private readonly projects: LabelCap
  private readonly perProject: boolean
  private sources: ScrapeSources = {}
  private readonly withProcess: boolean

  constructor(opts: { projectLabels: number; defaultMetrics?: boolean }) {
    const registers = [this.registry]
    this.perProject = opts.projectLabels > 0
    this.projects = new LabelCap(opts.projectLabels)
    this.withProcess = opts.defaultMetrics !== false
    const sources = (): ScrapeSources => this.sources

    this.requests = new Counter({
      name: 'ingest_requests_total',
      help: 'Ingest requests answered after routing, by endpoint and HTTP status.',
      labelNames: ['endpoint', 'status'],
      registers,
    })
    this.outcomes = new Counter({
      name: 'ingest_outcomes_total',
      help: 'Items and events by outcome, reason and category: the same sums the outcomes table got.',
      labelNames: this.perProject
        ? ['outcome', 'reason', 'category', 'project']
        : ['outcome', 'reason', 'category'],
      registers,
    })
    this.commitUnits = new Histogram({
      name: 'ingest_group_commit_units',
      help: 'Units (requests) written per committed store transaction.',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
      registers,
    })
    this.commitSeconds = new Histogram({
      name: 'ingest_group_commit_seconds',
      help: 'Time of one committed store write (transaction and fsync), seconds.',
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    })
    this.deliveries = new Counter({
      name: 'ingest_alert_deliveries_total',
      help: 'Alert delivery attempts by channel and result (sent, retry, failed).',
      labelNames: ['channel', 'result'],
      registers,
    })
    this.retention = new Counter({
      name: 'ingest_retention_rows_removed_total',
      help: 'Rows the retention sweep removed, by kind.',
      labelNames: ['kind'],
      registers,
    })

    new Gauge({
      name: 'ingest_queued_units',
      help: 'Ingest units admitted and not yet answered (the queue the shedding bounds).',
      registers,
      collect() {
        const q = sources().queue?.()
        if (q !== undefined) this.set(q.units)
      },
    })
    new Gauge({
      name: 'ingest_queue_bound_units',
      help: 'The queue bound in force; above it new ingest requests are shed.',
      registers,
      collect() {
        const q = sources().queue?.()
        if (q !== undefined) this.set(q.bound)
      },
    })
    new Gauge({
      name: 'ingest_requests_in_flight',
      help: 'Ingest requests in flight in this process.',
      registers,
      collect() {
        const f = sources().inflight?.()
        if (f !== undefined) this.set(f.inflight)
      },
    })
    new Gauge({
      name: 'ingest_requests_in_flight_limit',
      help: 'The adaptive bound on ingest requests in flight (0: none).',
      registers,
      collect() {
        const f = sources().inflight?.()
        if (f !== undefined) this.set(f.limit)
      },
    })
    new Counter({
      name: 'ingest_shed_requests_total',
      help: 'Ingest requests shed with 429 because the server was overloaded, by stage.',
      labelNames: ['stage'],
      registers,
      collect() {
        const s = sources().shed?.()
        if (s === undefined) return
        this.reset()
        this.inc({ stage: 'before_routing' }, s.early)
        this.inc({ stage: 'admission' }, s.admission)
      },
    })
    new Gauge({
      name: 'ingest_disk_guard_active',
      help: '1 while the disk guard refuses new data (free space below DISK_MIN_FREE_BYTES).',
      registers,
      collect() {
        const low = sources().diskLow?.()
        if (low !== undefined) this.set(low ? 1 : 0)
      },
    })
    new Gauge({
      name: 'ingest_cron_clock_lag_seconds',
      help: 'Seconds since the cron clock last finished a tick.',
      registers,
      collect() {
        const c = sources().cron?.()
        if (c !== undefined) this.set(c.lagSeconds)
      },
    })
    new Counter({
      name: 'ingest_cron_runs_recorded_total',
      help: 'Missed and overrunning cron runs this node recorded.',
      registers,
      collect() {
        const c = sources().cron?.()
        if (c === undefined) return
        this.reset()
        this.inc(c.recorded)
      },
    })
  }

  /** The PostgreSQL backend's instruments (pool, change feed). */
  private postgresInstruments(): void {
    const registers = [this.registry]
    const sources = (): ScrapeSources => this.sources
    new Gauge({
      name: 'ingest_pg_pool_connections',
      help: 'PostgreSQL pool connections by state (in_use, idle).',
      labelNames: ['state'],
      registers,
      collect() {
        const p = sources().backend?.()?.pool
        if (p === undefined) return
        this.set({ state: 'in_use' }, p.inUse)
        this.set({ state: 'idle' }, p.idle)
      },
    })
    new Gauge({
      name: 'ingest_pg_pool_size',
      help: 'Most PostgreSQL connections the pool opens (DATABASE_POOL_SIZE).',
      registers,
      collect() {
        const p = sources().backend?.()?.pool
        if (p !== undefined) this.set(p.size)
      },
    })
    new Gauge({
      name: 'ingest_pg_pool_waiting',
      help: 'Queries waiting for a PostgreSQL pool connection.',
      registers,
      collect() {
        const p = sources().backend?.()?.pool
        if (p !== undefined) this.set(p.waiting)
      },
    })
    totalCounter(
      registers,
      'ingest_pg_change_feed_reconnects_total',
      'Times the change feed re-established its LISTEN connection.',
      () => sources().backend?.()?.feed?.reconnects,
    )
    new Gauge({
      name: 'ingest_pg_change_feed_lag_seconds',
      help: 'Delay of the last change notice, from its NOTIFY to its arrival here, seconds.',
      registers,
      collect() {
        const f = sources().backend?.()?.feed
        if (f !== undefined) this.set(f.lagMs / 1000)
      },
    })
    const fold = () => sources().backend?.()?.fold
    new Counter({
      name: 'ingest_pg_counter_folds_total',
      help: 'Counter fold transactions this node ran: on its fold turns (periodic), for reads (read).',
      labelNames: ['kind'],
      registers,
      collect() {
        const f = fold()
        if (f === undefined) return
        this.reset()
        this.inc({ kind: 'periodic' }, f.periodic)
        this.inc({ kind: 'read' }, f.read)
      },
    })
    totalCounter(
      registers,
      'ingest_pg_counter_fold_rows_total',
      'Counter delta rows (one per group commit) this node folded into the counter tables.',
      () => fold()?.rows,
    )
    totalCounter(
      registers,
      'ingest_pg_counter_fold_seconds_total',
      'Seconds this node spent in counter fold transactions.',
      () => fold()?.seconds,
    )
    new Gauge({
      name: 'ingest_pg_change_feed_connected',
      help: '1 while the change feed listens, 0 while it reconnects.',
      registers,
      collect() {
        const f = sources().backend?.()?.feed
        if (f !== undefined) this.set(f.connected ? 1 : 0)
      },
    })
  }

  /** The SQLite writer thread's instrument. */
  private writerInstruments(): void {
    const registers = [this.registry]
    const sources = (): ScrapeSources => this.sources
    new Counter({
      name: 'ingest_sqlite_writer_busy_seconds_total',
      help: "Seconds the SQLite writer thread was busy; rate() of it is the thread's busy share.",
      registers,
      collect() {
        const s = sources().backend?.()?.writerBusySeconds
        if (s === undefined) return
        this.reset()
        this.inc(s)
      },
    })
  }

  /**
   * Sets what gauges read at scrape time (metrics/wiring.ts, once the parts exist); a backend's
   * own instruments are registered for the backend it has, so one never shows the other's.
   */
  setSources(s: ScrapeSources): void {
    const hadBackend = this.sources.backend !== undefined
    this.sources = { ...this.sources, ...s }
    const usage = hadBackend ? undefined : s.backend?.()
    if (usage?.pool !== undefined) this.postgresInstruments()
    if (usage?.writerBusySeconds !== undefined) this.writerInstruments()
  }

  /** One answered ingest request (route pattern as registered, HTTP status). */
  request(route: string, status: number): void {
    const k = `${route}|${status}`
    let child = this.requestChildren.get(k)
    if (child === undefined) {
      child = this.requests.labels(endpointOf(route), String(status))
      // Routes and statuses are the server's own: a few dozen at most.
      if (this.requestChildren.size < 1000) this.requestChildren.set(k, child)
    }
    child.inc()
  }

  /** One committed store write: its size, time and the outcome counters it added. */
  committed(units: number, seconds: number, outcomes: readonly CountedOutcome[]): void {
    this.commitUnits.observe(units)
    this.commitSeconds.observe(seconds)
    for (const o of outcomes) if (o.quantity > 0) this.outcomeChild(o).inc(o.quantity)
  }

  private outcomeChild(o: CountedOutcome): Counter.Internal {
    const project = this.perProject ? this.projects.label(o.projectId) : ''
    const k = `${o.outcome}\0${o.reason}\0${o.category}\0${project}`
    const hit = this.outcomeChildren.get(k)
    if (hit !== undefined) return hit
    const full = this.outcomeChildren.size >= MAX_OUTCOME_SERIES
    const values = [
      boundedLabel(o.outcome),
      full ? 'other' : boundedLabel(o.reason),
      full ? 'other' : boundedLabel(o.category),
    ]
    if (this.perProject) values.push(project)
    const child = this.outcomes.labels(...values)
    if (!full) this.outcomeChildren.set(k, child)
    return child
  }

  /** One alert delivery attempt's result. */
  delivery(channel: 'webhook' | 'email', result: 'sent' | 'retry' | 'failed'): void {
    this.deliveries.inc({ channel, result })
  }

  /** Rows one retention sweep removed. */
  pruned(r: { events: number; sessions: number; outcomes: number; derived?: number }): void {
    if (r.events > 0) this.retention.inc({ kind: 'events' }, r.events)
    if (r.sessions > 0) this.retention.inc({ kind: 'sessions' }, r.sessions)
    if (r.outcomes > 0) this.retention.inc({ kind: 'outcomes' }, r.outcomes)
    if ((r.derived ?? 0) > 0) this.retention.inc({ kind: 'derived' }, r.derived ?? 0)
  }

  /** The exposition text (this app's instruments, then the process's), and its content type. */
  async render(): Promise<{ body: string; contentType: string }> {
    const own = await this.registry.metrics()
    const body = this.withProcess ? own + (await processRegistry().metrics()) : own
    return { body, contentType: this.registry.contentType }
  }
}
