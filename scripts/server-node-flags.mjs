/**
 * The Node flags the ingest server runs with: `npm start` passes them, and so does
 * `npm run bench`, so what the bench measures is what `npm start` serves.
 *
 * `--max-semi-space-size=4` (MiB; Node 20 grows it to 16): V8's young generation, where every
 * request's short-lived objects live, stays small. It is a process-wide V8 setting, so the
 * writer thread gets it too. Under `npm run bench` load it cut peak RSS by about 45 MiB and did
 * not slow ingest: four interleaved pairs, 1.00–1.12× events/s (docs/benchmark.md). 1–2 MiB
 * slowed ingest (more scavenges), 8 MiB measured no better than the default.
 */
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4']
