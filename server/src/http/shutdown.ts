import type { FastifyInstance } from 'fastify'
import type { ShutdownTiming } from '../config.ts'

/**
 * The graceful stop of a node behind a load balancer, as Kubernetes and most balancers expect
 * it (https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/#pod-termination):
 * `/readyz` answers 503 for `drainMs` while requests are still served, so health checks take
 * the node out of rotation; then `close()` stops accepting connections, lets requests in flight
 * finish (a 200 still means committed: the last group commit is flushed by the store's
 * `onClose`), ends SSE streams and stops timers, the live listener and the store. Resolves with
 * the exit code: 0, or 1 when the close failed or outlasted `timeoutMs`.
 */
export async function drainAndClose(
  app: FastifyInstance,
  timing: ShutdownTiming,
  opts: { drain: boolean },
): Promise<number> {
  app.readiness.draining = true
  if (opts.drain && timing.drainMs > 0) {
    app.log.info({ drainMs: timing.drainMs }, 'draining: readyz answers 503')
    await new Promise((r) => setTimeout(r, timing.drainMs))
  }
  let timer: NodeJS.Timeout | undefined
  const outlasted = new Promise<number>((resolve) => {
    timer = setTimeout(() => {
      app.log.error({ timeoutMs: timing.timeoutMs }, 'shutdown took too long; exiting')
      resolve(1)
    }, timing.timeoutMs)
  })
  const closed = app.close().then(
    () => 0,
    (err: unknown) => {
      app.log.error({ err }, 'error during shutdown')
      return 1
    },
  )
  const code = await Promise.race([closed, outlasted])
  clearTimeout(timer)
  return code
}
