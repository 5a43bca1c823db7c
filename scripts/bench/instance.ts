/**
 * A server under test, ready for load: the built ingest server on a fresh SQLite directory, a
 * pre-filled copy, or N nodes on one PostgreSQL — with a bench project, its ingest path and the
 * counter of stored events — or a running `--target` given by the user.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { copySqliteToPostgres } from '../../server/src/store/postgres/copy-from-sqlite.ts'
import { openPool } from '../../server/src/store/postgres/db.ts'
import { startTempPostgres } from '../postgres/temp-postgres.ts'

/**
 * The bench's PostgreSQL commits durably, as a deployment's does (PostgreSQL's defaults) and as
 * SQLite's `synchronous=FULL` does: the test default (`fsync=off`, `synchronous_commit=off`:
 * its data is thrown away) would measure a server whose 200 does not mean "on disk".
 */
const DURABLE_PG: Readonly<Record<string, string>> = {
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
}

import { apiCounter, postgresCounter, postgresCpu, sqliteCounter } from './count.ts'
import type { LoadTarget } from './measure.ts'
import { PG_STATS_SETTINGS } from './pg-probe.ts'
import { type Child, type Storage, startIngest, stopChild } from './server.ts'

/** A started (or given) server with the bench project on it. */
export interface Instance {
  target: LoadTarget
  /** Base URL of the first node (for API and page requests). */
  url: string
  token: string | undefined
  projectId: string
  stop(): Promise<void>
}

/** How to start the ingest server. */
export interface StartOptions {
  dist: string
  env: Record<string, string>
  /** Node flags for the server process (scripts/server-node-flags.mjs unless `--node-flags`). */
  nodeFlags: readonly string[]
  db: 'sqlite' | 'postgres'
  nodes: number
  /** An event quota per hour for the bench project (the quota path runs on every event). */
  quota?: number
  /** Data scrubbing and every inbound filter turned off on the bench project (`--no-privacy`). */
  privacyOff?: boolean
  /**
   * Runs on the empty storage before the server starts (`--retention` loads expired events).
   * With it, stored events are counted only where `received` ≥ `countSince` (ms).
   */
  prepare?: (s: Storage) => Promise<void>
  countSince?: number
  /**
   * A SQLite data directory to use instead of a fresh one (a pre-filled copy), with its project;
   * on PostgreSQL it is copied into the fresh database first.
   */
  prefilled?: { dataDir: string; projectId: string; publicKey: string }
  /** `--pg-stats`: PostgreSQL with pg_stat_statements, probed over each measured run. */
  pgStats?: boolean
}

const ingestPath = (projectId: string, key: string) =>
  `/api/${projectId}/envelope/?sentry_key=${key}&sentry_version=7`

/** Creates the bench project through the API; returns its id and public key. */
async function createProject(url: string, token: string): Promise<{ id: string; key: string }> {
  const res = await fetch(`${url}/api/0/projects/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `bench-${randomBytes(3).toString('hex')}` }),
  })
  if (!res.ok) throw new Error(`creating the bench project: ${res.status} ${await res.text()}`)
  const created = (await res.json()) as { id: number; dsn: string }
  return { id: String(created.id), key: new URL(created.dsn).username }
}

/** Turns the project's data scrubbing and inbound filters off (privacy on is the default). */
async function setPrivacyOff(url: string, token: string, projectId: string): Promise<void> {
  const res = await fetch(`${url}/api/0/projects/${projectId}/privacy/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      scrub_data: false,
      scrub_ip_addresses: false,
      filters: {
        localhost: false,
        browser_extensions: false,
        legacy_browsers: false,
        web_crawlers: false,
        error_messages: [],
        releases: [],
        client_ips: [],
      },
    }),
  })
  if (!res.ok) throw new Error(`turning privacy off failed: ${res.status} ${await res.text()}`)
}

/** Gives the project an event quota per hour. */
async function setQuota(
  url: string,
  token: string,
  projectId: string,
  events: number,
): Promise<void> {
  const res = await fetch(`${url}/api/0/projects/${projectId}/`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ quota: { events, window_seconds: 3600 } }),
  })
  if (!res.ok) throw new Error(`setting the quota failed: ${res.status} ${await res.text()}`)
}

/** Fails clearly when the server did not put its data into PostgreSQL (DATABASE_URL ignored). */
async function assertUsesPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const r = await client.query<{ t: string | null }>("SELECT to_regclass('events') AS t")
    if (r.rows[0]?.t === null || r.rows[0]?.t === undefined) {
      throw new Error(
        'the server created no events table in PostgreSQL: it does not support DATABASE_URL yet, so there is nothing to measure',
      )
    }
  } finally {
    await client.end()
  }
}

/** Copies a pre-filled SQLite data directory into the (empty) PostgreSQL database at `url`. */
async function copyPrefilled(dataDir: string, url: string): Promise<void> {
  const pool = openPool(url, 2)
  try {
    const t0 = performance.now()
    await copySqliteToPostgres(join(dataDir, 'ingest.sqlite'), pool)
    await pool.query('ANALYZE')
    console.log(`scale: copied into PostgreSQL in ${Math.round((performance.now() - t0) / 1000)} s`)
  } finally {
    await pool.end()
  }
}

/** Starts the built server (one SQLite node, or N nodes on a temporary PostgreSQL). */
export async function startInstance(o: StartOptions): Promise<Instance> {
  const token = randomBytes(16).toString('hex')
  const where = o.countSince === undefined ? '' : `WHERE received >= ${Math.floor(o.countSince)}`
  const dirs: string[] = []
  const children: Child[] = []
  let pgStop: (() => Promise<void>) | undefined
  const stop = async () => {
    for (const c of children) await stopChild(c)
    await pgStop?.()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  }
  try {
    const newDir = () => {
      const d = mkdtempSync(join(process.env['BENCH_TMPDIR'] ?? tmpdir(), 'ingest-bench-'))
      dirs.push(d)
      return d
    }
    if (o.db === 'postgres') {
      const pgdb = await startTempPostgres({
        ...DURABLE_PG,
        ...(o.pgStats === true ? PG_STATS_SETTINGS : {}),
      })
      pgStop = pgdb.stop
      await o.prepare?.({ dataDir: newDir(), databaseUrl: pgdb.url })
      // `--scale`: the pre-filled SQLite database moved over with the `db:copy` code.
      if (o.prefilled !== undefined) await copyPrefilled(o.prefilled.dataDir, pgdb.url)
      for (let i = 0; i < o.nodes; i++) {
        const dataDir = newDir()
        children.push(
          await startIngest(o.dist, { dataDir, databaseUrl: pgdb.url }, token, o.env, o.nodeFlags),
        )
      }
      const first = children[0] as Child
      await assertUsesPostgres(pgdb.url)
      const p =
        o.prefilled === undefined
          ? await createProject(first.url, token)
          : { id: o.prefilled.projectId, key: o.prefilled.publicKey }
      if (o.quota !== undefined) await setQuota(first.url, token, p.id, o.quota)
      if (o.privacyOff === true) await setPrivacyOff(first.url, token, p.id)
      return {
        target: {
          url: first.url,
          path: ingestPath(p.id, p.key),
          addrs: children.map((c) => new URL(c.url).host),
          counter: postgresCounter(pgdb.url, where),
          pids: children.map((c) => c.child.pid ?? -1),
          dbCpuMs: postgresCpu(pgdb.url),
          ...(o.pgStats === true ? { pgStatsUrl: pgdb.url } : {}),
        },
        url: first.url,
        token,
        projectId: p.id,
        stop,
      }
    }
    const dataDir = o.prefilled?.dataDir ?? newDir()
    await o.prepare?.({ dataDir })
    const server = await startIngest(o.dist, { dataDir }, token, o.env, o.nodeFlags)
    children.push(server)
    const p =
      o.prefilled === undefined
        ? await createProject(server.url, token)
        : { id: o.prefilled.projectId, key: o.prefilled.publicKey }
    if (o.quota !== undefined) await setQuota(server.url, token, p.id, o.quota)
    if (o.privacyOff === true) await setPrivacyOff(server.url, token, p.id)
    return {
      target: {
        url: server.url,
        path: ingestPath(p.id, p.key),
        counter: sqliteCounter(dataDir, undefined, where),
        pids: [server.child.pid ?? -1],
      },
      url: server.url,
      token,
      projectId: p.id,
      stop,
    }
  } catch (err) {
    await stop()
    throw err
  }
}

/** A running server given with `--target` (nothing is started or stopped). */
export function givenTarget(o: {
  url: string
  key: string
  projectId: string
  token: string | undefined
  pid: number | undefined
}): Instance {
  return {
    target: {
      url: o.url,
      path: ingestPath(o.projectId, o.key),
      counter: o.token === undefined ? undefined : apiCounter(o.url, o.projectId, o.token),
      pids: o.pid === undefined ? [] : [o.pid],
    },
    url: o.url,
    token: o.token,
    projectId: o.projectId,
    stop: async () => {},
  }
}
