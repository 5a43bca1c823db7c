/**
 * The Node flags the ingest server runs with: `npm start` passes them, and so does
 * `npm run bench`, so what the bench measures is what `npm start` serves. Both are about a
 * machine with few cores, where the main thread, the writer thread and V8's helpers compete.
 *
 * - `--max-semi-space-size` (MiB; Node 20 grows it to 16): the size of V8's young generation,
 *   where every request's short-lived objects live. On SQLite 4: peak RSS about 50 MiB lower,
 *   p99 about 4 ms lower, events/s 0.98–1.22× in four interleaved pairs; 1–2 MiB slowed
 *   ingest (more scavenges), 8 MiB was no better. On PostgreSQL 16: a request there lives
 *   through two database round trips (p50 10–15 ms against SQLite's 5), so a small young
 *   generation is scavenged while most requests in flight are still alive and copies them;
 *   16 MiB against 4: node CPU per event 0.76–1.0× (median 0.83×), events/s median 1.1× in
 *   nine interleaved pairs, peak RSS about the same. A process-wide V8 setting, fixed when the
 *   heap is made, so it has to be on the command line.
 * - `--v8-pool-size=1` (default 4): one V8 helper thread for parallel scavenges and concurrent
 *   marking instead of four, which on two cores took CPU from the main thread at every
 *   scavenge. Events/s 1.03–1.37× (median ≈ 1.19×) in seven interleaved pairs.
 *
 * Figures and method: docs/benchmark.md.
 */

/** The flags for the embedded default, SQLite. */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', '--v8-pool-size=1']

/** The flags for a server on PostgreSQL (`DATABASE_URL` set). */
export const POSTGRES_SERVER_NODE_FLAGS = ['--max-semi-space-size=16', '--v8-pool-size=1']

/** The flags for a server on `backend` (`sqlite` or `postgres`). */
export function nodeFlagsFor(backend) {
  return backend === 'postgres' ? POSTGRES_SERVER_NODE_FLAGS : SERVER_NODE_FLAGS
}

/** The flags for a server started with this environment: `DATABASE_URL` set means PostgreSQL. */
export function serverNodeFlags(env) {
  const url = env.DATABASE_URL
  return nodeFlagsFor(url !== undefined && url !== '' ? 'postgres' : 'sqlite')
}
