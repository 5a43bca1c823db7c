import type { FastifyInstance } from 'fastify'
import { CronClock, type CronClockDeps } from './clock.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The cron monitor clock (missed and overrunning runs). */
    cronClock: CronClock
  }
}

/**
 * Creates the cron clock for an app: it starts ticking once the app is ready (a first tick at
 * once reports what was missed while the server was down) and stops before the store closes.
 */
export function installCronClock(
  app: FastifyInstance,
  deps: Pick<CronClockDeps, 'store' | 'committer' | 'bus'> & {
    config: { cronClockIntervalMs: number }
  },
): CronClock {
  const clock = new CronClock({
    store: deps.store,
    committer: deps.committer,
    bus: deps.bus,
    intervalMs: deps.config.cronClockIntervalMs,
    log: app.log,
  })
  app.decorate('cronClock', clock)
  app.addHook('onReady', async () => clock.start())
  app.addHook('preClose', async () => clock.stop())
  return clock
}
