/**
 * What one early refusal (the prebuilt 429 of `server/src/http/early-shed.ts`) costs the server:
 * the built server is started with `INGEST_MAX_QUEUED_UNITS=0`, so every ingest request is
 * refused before routing, and loaded closed loop with `wrk` (the bench's 4 KiB envelope);
 * server CPU (from /proc) over 429 answers is the cost per refusal. Several builds are run
 * interleaved, `--runs` times each, because the machine may be shared: compare ratios.
 *
 *   node --import tsx scripts/bench/refusal-cost.ts [--runs 3] [--seconds 5] DIST…
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { SERVER_NODE_FLAGS } from '../server-node-flags.mjs'
import { cpuMs, startIngest, stopChild } from './server.ts'
import { runWrk } from './wrk.ts'

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
  },
})
const dists = positionals.length > 0 ? positionals : ['server/dist']

/** One build's run: µs of server CPU per 429 and 429 answers per second. */
async function measure(dist: string): Promise<{ usPerRefusal: number; perSec: number }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'refusal-cost-'))
  const child = await startIngest(
    dist,
    { dataDir },
    'refusal-cost-token',
    { INGEST_MAX_QUEUED_UNITS: '0', DISK_MIN_FREE_BYTES: '0' },
    SERVER_NODE_FLAGS,
  )
  try {
    const pid = child.child.pid
    // The early refusal comes before the key is checked: any project and key will do.
    const shape = {
      url: child.url,
      path: '/api/1/envelope/?sentry_key=00000000000000000000000000000000&sentry_version=7',
      connections: Number(values.connections),
      countStatus: true,
    }
    await runWrk({ ...shape, seconds: 1 })
    const cpu0 = cpuMs(pid)
    const r = await runWrk({ ...shape, seconds: Number(values.seconds) })
    const cpu = cpuMs(pid) - cpu0
    const refused = r.status?.r429 ?? 0
    if (refused === 0 || refused !== r.requests) {
      throw new Error(`${dist}: ${refused} of ${r.requests} answers were 429`)
    }
    return { usPerRefusal: (cpu * 1000) / refused, perSec: refused / r.seconds }
  } finally {
    await stopChild(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

for (let i = 0; i < Number(values.runs); i++) {
  for (const dist of dists) {
    const m = await measure(dist)
    console.log(
      `run ${i + 1} ${dist}: ${m.usPerRefusal.toFixed(1)} µs server CPU per 429, ${Math.round(m.perSec)} 429/s`,
    )
  }
}
