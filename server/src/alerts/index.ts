import type { FastifyInstance } from 'fastify'
import { DecisionDrain } from './decision-drain.ts'
import { AlertTriggers } from './triggers.ts'
import { AlertWorker } from './worker.ts'

/** The running alert machinery of one server node. */
export interface AlertService {
  triggers: AlertTriggers
  drain: DecisionDrain
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
  const drain = new DecisionDrain(store, triggers, {
    onCreated: () => worker.wake(),
    onError: (err) => app.log.warn({ err }, 'alert decision drain failed'),
  })
  // This node's own new issues and regressions are drained at once; other nodes' by the poll.
  const onStored = (e: { issueCreated: boolean; regressed: boolean }) => {
    if (e.issueCreated || e.regressed) drain.drain().catch(() => undefined)
  }
  bus.on('event.stored', onStored)
  const service: AlertService = {
    triggers,
    drain,
    worker,
    idle: async () => {
      await drain.drain()
      await triggers.idle()
    },
  }
  app.decorate('alerts', service)
  app.addHook('onReady', async () => {
    worker.start()
    drain.start(config.alerts.pollMs)
  })
  app.addHook('preClose', async () => {
    await drain.stop()
    await worker.stop()
  })
  app.addHook('onClose', async () => {
    bus.off('event.stored', onStored)
    unsubscribe()
    await triggers.idle()
  })
  return service
}
