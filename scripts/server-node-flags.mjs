/**
 * The Node flags the ingest server runs with: `npm start` passes them, and so does
 * `npm run bench`, so what the bench measures is what `npm start` serves. Both are about a
 * machine with few cores, where the main thread, the writer thread and V8's helpers compete.
 *
 * - `--max-semi-space-size=4` (MiB; Node 20 grows it to 16): V8's young generation, where every
 *   request's short-lived objects live, stays small. A process-wide V8 setting, so the writer
 *   thread gets it too. Peak RSS about 50 MiB lower, p99 about 4 ms lower, events/s 0.98–1.22×
 *   in four interleaved pairs; 1–2 MiB slowed ingest (more scavenges), 8 MiB was no better.
 * - `--v8-pool-size=1` (default 4): one V8 helper thread for parallel scavenges and concurrent
 *   marking instead of four, which on two cores took CPU from the main thread at every
 *   scavenge. Events/s 1.03–1.37× (median ≈ 1.19×) in seven interleaved pairs.
 *
 * Figures and method: docs/benchmark.md.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4', '--v8-pool-size=1']
