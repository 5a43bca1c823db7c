import type { FastifyInstance } from 'fastify'
import type { Services } from '../services.ts'
import { CronClock } from './clock.ts'

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
export function installCronClock(app: FastifyInstance, services: Services): CronClock {
  const clock = new CronClock({
    store: services.store,
    committer: services.committer,
    bus: services.bus,
    intervalMs: services.config.cronClockIntervalMs,
    log: app.log,
  })
  app.decorate('cronClock', clock)
  app.addHook('onReady', async () => clock.start())
  app.addHook('preClose', async () => clock.stop())
  return clock
}
