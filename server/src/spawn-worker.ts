import { type ResourceLimits, Worker } from 'node:worker_threads'

/**
 * Starts a worker thread on the module `name` next to the caller (`callerUrl`: its
 * `import.meta.url`), in the caller's own form: the built server runs `name.js` from `dist/`
 * with nothing else; from TypeScript sources (tests, `npm run dev`) it runs `name.ts`, which the
 * worker loads through the loader the process was started with (`scripts/tsx-in-worker-threads.mjs`
 * registers tsx in worker threads, which Node 20 does not do by itself).
 */
export function spawnWorker(
  callerUrl: string,
  name: string,
  workerData: unknown,
  resourceLimits?: ResourceLimits,
): Worker {
  const limits = resourceLimits === undefined ? {} : { resourceLimits }
  const ext = callerUrl.endsWith('.ts') ? 'ts' : 'js'
  return new Worker(new URL(`./${name}.${ext}`, callerUrl), { workerData, ...limits })
}
