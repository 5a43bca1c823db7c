import type { FastifyInstance } from 'fastify'
import { AlertTriggers } from './triggers.ts'
import { AlertWorker } from './worker.ts'

/** The running alert machinery of one server node. */
export interface AlertService {
  triggers: AlertTriggers
  worker: AlertWorker
  /** Resolves once every stored event announced so far has had its rules evaluated. */
  idle(): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    alerts: AlertService
  }
}

/**
 * Wires alerts into the app: rules are evaluated on each `event.stored` notice, the delivery
 * worker starts when the app is ready and stops before it closes. Call it after the store's
 * onClose hook is registered (onClose hooks run last-registered first), so evaluations still
 * in flight finish before the store closes.
 */
export function setupAlerts(app: FastifyInstance): AlertService {
  const { store, bus, config, baseUrl } = app.services
  const worker = new AlertWorker(
    store,
    {
      ...config.alerts,
      smtp: config.smtp,
      allowPrivateTargets: config.protection.allowPrivateWebhooks,
    },
    app.log,
  )
  const triggers = new AlertTriggers({
    store,
    baseUrl,
    onEnqueued: () => worker.wake(),
    onError: (err) => app.log.warn({ err }, 'alert rule evaluation failed'),
  })
  const unsubscribe = triggers.listen(bus)
  const service: AlertService = { triggers, worker, idle: () => triggers.idle() }
  app.decorate('alerts', service)
  app.addHook('onReady', async () => worker.start())
  app.addHook('preClose', async () => worker.stop())
  app.addHook('onClose', async () => {
    unsubscribe()
    await triggers.idle()
  })
  return service
}
