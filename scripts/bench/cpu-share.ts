/**
 * `--cpu-share`: the scale-out path on a small machine. PostgreSQL gets a CPU quota of its own
 * and 1, 2 and 3 server nodes each get the same quota (cpu-cgroup.ts), so adding a node adds a
 * fixed slice of CPU, as adding a machine would; the node counts are interleaved over the
 * rounds and the medians reported per node count. Each node gets `--connections` of its own
 * (wrk opens connections × nodes), as a machine added behind a balancer brings its share of the
 * clients. wrk runs outside every quota.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import pg from 'pg'
import {
  type CpuLimit,
  cpuCgroupRoot,
  limitCpu,
  parentOf,
  processTree,
  sweepStaleCgroups,
} from './cpu-cgroup.ts'
import { type StartOptions, startInstance } from './instance.ts'
import { type IngestFigures, type LoadShape, measureIngest } from './measure.ts'
import { formatIngest, medianOf } from './report.ts'

/** One run at one node count. */
export interface ShareRun {
  nodes: number
  ingest: IngestFigures
  /** Events/s divided by the node count. */
  perNode: number
  /** Cores each node used on average (at most the share, within accounting noise). */
  nodeCoresEach: number
  /** The share of CFS periods in which the quota ran out, PostgreSQL's and the nodes' worst. */
  dbThrottled: number
  nodeThrottled: number
  /** How many PostgreSQL processes were moved into its cgroup at the start. */
  dbProcesses: number
}

/** The PostgreSQL server process: the parent of any of its background processes. */
async function postmasterPid(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    const r = await c.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'`,
    )
    const pid = r.rows[0]?.pid
    if (pid === undefined) throw new Error('no checkpointer in pg_stat_activity')
    return parentOf(pid)
  } finally {
    await c.end()
  }
}

const throttledShare = (l: CpuLimit, before: { periods: number; throttled: number }) => {
  const now = l.throttling()
  const periods = now.periods - before.periods
  return periods === 0 ? 0 : Math.round(((now.throttled - before.throttled) / periods) * 100) / 100
}

/** One measured run: PostgreSQL and `nodes` servers, each in a cgroup of `share` cores. */
async function shareRun(
  o: StartOptions,
  shape: LoadShape,
  nodes: number,
  share: number,
  root: { version: 2 | 1; root: string },
): Promise<ShareRun> {
  const tag = randomBytes(3).toString('hex')
  const limits: CpuLimit[] = []
  const inst = await startInstance({ ...o, db: 'postgres', nodes })
  try {
    const db = limitCpu(root, `ingest-bench-${tag}-postgres`, share)
    limits.push(db)
    // The server and its processes now; backends forked later start in the cgroup.
    const tree = processTree(await postmasterPid(inst.databaseUrl as string)).filter((pid) =>
      db.add(pid),
    )
    const nodeLimits = inst.target.pids.map((pid, i) => {
      const l = limitCpu(root, `ingest-bench-${tag}-node${i + 1}`, share)
      limits.push(l)
      if (!l.add(pid)) throw new Error(`node ${i + 1} (pid ${pid}) exited`)
      return l
    })
    const dbBefore = db.throttling()
    const nodesBefore = nodeLimits.map((l) => l.throttling())
    // Each node brings its own clients, as a machine added behind the balancer would.
    const ingest = await measureIngest(inst.target, {
      ...shape,
      connections: shape.connections * nodes,
    })
    return {
      nodes,
      ingest,
      perNode: Math.round(ingest.eventsPerSec / nodes),
      nodeCoresEach: Math.round((ingest.coresUsed / nodes) * 100) / 100,
      dbThrottled: throttledShare(db, dbBefore),
      nodeThrottled: Math.max(
        ...nodeLimits.map((l, i) => throttledShare(l, nodesBefore[i] ?? l.throttling())),
      ),
      dbProcesses: tree.length,
    }
  } finally {
    await inst.stop()
    for (const l of limits) l.remove()
  }
}

/** The node counts in round `r`'s order: each goes first in turn, so drift favours none. */
export const nodeOrder = (counts: readonly number[], r: number): number[] =>
  counts.map((_, i) => counts[(i + r - 1) % counts.length] as number)

/** Runs the rounds and prints every run and the medians per node count. */
export async function cpuShareMain(
  o: StartOptions,
  shape: LoadShape,
  runs: number,
  share: number,
  counts: readonly number[],
  json: string,
): Promise<void> {
  const root = cpuCgroupRoot()
  if ('missing' in root) throw new Error(`--cpu-share cannot limit CPU: ${root.missing}`)
  sweepStaleCgroups(root)
  const example = `cgroup v${root.version} under ${root.root}`
  console.log(
    `cpu share: PostgreSQL and each node in a cgroup of its own limited to ${share} cores (${example}, CFS period 100 ms); node counts ${counts.join(', ')}, interleaved over ${runs} round(s); ${shape.connections} connections per node; wrk unlimited`,
  )
  const all: ShareRun[] = []
  for (let r = 1; r <= runs; r++) {
    for (const n of nodeOrder(counts, r)) {
      const run = await shareRun(o, shape, n, share, root)
      all.push(run)
      console.log(
        `run ${r}, ${n} node(s): ${run.perNode} events/s per node; ${formatIngest(run.ingest)}; throttled periods: PostgreSQL ${run.dbThrottled}, busiest node ${run.nodeThrottled}`,
      )
    }
  }
  const m = runs > 1 ? 'median ' : ''
  console.log('')
  const summary = counts.map((n) => {
    const of = all.filter((x) => x.nodes === n)
    const ingest = medianOf(of.map((x) => x.ingest))
    const rest = medianOf(of.map(({ ingest: _, ...x }) => x))
    console.log(
      `${m}${n} node(s) × ${share} cores + PostgreSQL ${share} cores: ${ingest.eventsPerSec.toLocaleString('en-US')} events/s (${rest.perNode.toLocaleString('en-US')} per node); nodes ${rest.nodeCoresEach} cores each, ${ingest.cpuMsPerEvent} CPU ms/event; PostgreSQL ${ingest.dbCores} cores, ${ingest.dbCpuMsPerEvent} CPU ms/event; throttled periods PostgreSQL ${rest.dbThrottled}, busiest node ${rest.nodeThrottled}`,
    )
    return { ...rest, nodes: n, ingest }
  })
  mkdirSync(dirname(json), { recursive: true })
  writeFileSync(
    json,
    `${JSON.stringify({ shape, runs, cpuShare: { share, cgroup: example, summary, runs: all } }, null, 2)}\n`,
  )
}
