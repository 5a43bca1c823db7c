/**
 * A CPU quota for a set of processes, for `--cpu-share`: a child cgroup with a CFS bandwidth
 * limit (cgroup v2 `cpu.max`, or cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`), into
 * which running processes are moved. A process forked later by one inside (a PostgreSQL
 * backend) starts inside. Needs root (or a delegated cgroup) and a writable cgroup mount; what
 * is missing is said, never worked around with a weaker limit.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The CFS period every limit uses, µs (the kernel's default; `BENCH_CFS_PERIOD_US`). */
const PERIOD_US = Number(process.env['BENCH_CFS_PERIOD_US'] ?? 100_000)

/** Where quotas can be set: the cgroup version and the directory children are made in. */
export type CgroupRoot = { version: 2 | 1; root: string } | { missing: string }

/** A cgroup hierarchy with the cpu controller that this process may write, or why not. */
export function cpuCgroupRoot(): CgroupRoot {
  const v2 = '/sys/fs/cgroup'
  const v1 = '/sys/fs/cgroup/cpu'
  let root: { version: 2 | 1; root: string } | undefined
  if (
    existsSync(join(v2, 'cgroup.controllers')) &&
    readFileSync(join(v2, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu')
  )
    root = { version: 2, root: v2 }
  else if (existsSync(join(v1, 'cpu.cfs_quota_us'))) root = { version: 1, root: v1 }
  if (root === undefined)
    return { missing: 'no cgroup hierarchy with the cpu controller under /sys/fs/cgroup' }
  const probe = join(root.root, `ingest-bench-probe-${process.pid}`)
  try {
    if (root.version === 2) enableCpuBelow(root.root)
    mkdirSync(probe)
    rmdirSync(probe)
  } catch (err) {
    return {
      missing: `cannot create a cgroup under ${root.root} (${(err as Error).message}): run as root with /sys/fs/cgroup writable`,
    }
  }
  return root
}

/** cgroup v2: children of `dir` get the cpu controller only if `dir` hands it down. */
function enableCpuBelow(dir: string): void {
  const control = join(dir, 'cgroup.subtree_control')
  if (!readFileSync(control, 'utf8').split(/\s+/).includes('cpu')) writeFileSync(control, '+cpu')
}

/** A cgroup with a CPU quota. */
export interface CpuLimit {
  /** `cgroup v1 /sys/fs/cgroup/cpu/<name>: 0.4 cores (cfs_quota_us 40000 per 100000)`. */
  describe: string
  dir: string
  cores: number
  /** Moves a running process (all its threads) into the cgroup; false if it has ended. */
  add(pid: number): boolean
  /** Periods so far and the ones in which the quota ran out (cpu.stat). */
  throttling(): { periods: number; throttled: number }
  /** Moves what is left back to the root and removes the cgroup (best effort). */
  remove(): void
}

/** Creates a cgroup limited to `cores` CPUs (e.g. 0.4: 40 ms of CPU per 100 ms). */
export function limitCpu(root: { version: 2 | 1; root: string }, name: string, cores: number) {
  const dir = join(root.root, name)
  mkdirSync(dir)
  const quota = Math.max(1000, Math.round(cores * PERIOD_US))
  let describe: string
  if (root.version === 2) {
    writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`)
    describe = `cgroup v2 ${dir}: ${cores} cores (cpu.max "${quota} ${PERIOD_US}")`
  } else {
    writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US))
    writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota))
    describe = `cgroup v1 ${dir}: ${cores} cores (cpu.cfs_quota_us ${quota} per cpu.cfs_period_us ${PERIOD_US})`
  }
  const limit: CpuLimit = {
    describe,
    dir,
    cores,
    add: (pid) => {
      try {
        writeFileSync(join(dir, 'cgroup.procs'), String(pid))
        return true
      } catch (err) {
        // A process that ended since it was listed (a short-lived backend) is left out.
        if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false
        throw err
      }
    },
    throttling: () => {
      const stat = new Map(
        readFileSync(join(dir, 'cpu.stat'), 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split(' ') as [string, string]),
      )
      return {
        periods: Number(stat.get('nr_periods')),
        throttled: Number(stat.get('nr_throttled')),
      }
    },
    remove: () => {
      try {
        for (const pid of readFileSync(join(dir, 'cgroup.procs'), 'utf8').split('\n'))
          if (pid !== '') writeFileSync(join(root.root, 'cgroup.procs'), pid)
        rmdirSync(dir)
      } catch {
        // a process still exiting: the empty cgroup is removed on a later run's sweep
      }
    },
  }
  return limit
}

/** Removes empty cgroups an interrupted earlier run left (`ingest-bench-*`). */
export function sweepStaleCgroups(root: { root: string }): void {
  for (const name of readdirSync(root.root)) {
    if (!name.startsWith('ingest-bench-')) continue
    try {
      rmdirSync(join(root.root, name))
    } catch {
      // still in use
    }
  }
}

/** A process and every process below it (from /proc: each process's parent). */
export function processTree(pid: number): number[] {
  const parent = new Map<number, number[]>()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const list = parent.get(ppid) ?? []
      list.push(Number(name))
      parent.set(ppid, list)
    } catch {
      // ended while listed
    }
  }
  const out: number[] = []
  const walk = (p: number) => {
    out.push(p)
    for (const c of parent.get(p) ?? []) walk(c)
  }
  walk(pid)
  return out
}

/** The parent of a process (from /proc). */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
}
