import type { FastifyInstance } from 'fastify'
import type { Services } from '../services.ts'
import { DecisionDrain } from './decision-drain.ts'
import { AlertTriggers } from './triggers.ts'
import { AlertWorker } from './worker.ts'

/** The running alert machinery of one server node. */
export interface AlertService {
  triggers: AlertTriggers
  drain: DecisionDrain
  worker: AlertWorker
  /** Resolves once every alert decision committed so far has become a delivery. */
  idle(): Promise<void>
}

declare module 'fastify' {
  interface FastifyInstance {
    alerts: AlertService
  }
}

/** How soon after a stored event without a new issue or regression this node drains (ms). */
const FREQUENCY_DRAIN_MS = 250

/** What alerting needs from the running server, given at registration. */
export type AlertDeps = Pick<Services, 'store' | 'bus' | 'config' | 'baseUrl' | 'metrics'>

/**
 * Wires alerts into the app: the decisions the ingest transaction records are drained into
 * deliveries (at once for this node's new issues and regressions, within
 * {@link FREQUENCY_DRAIN_MS} for its other events, by the poll for other nodes'), the delivery
 * worker starts when the app is ready and stops before it closes. Call it after the store's
 * onClose hook is registered (onClose hooks run last-registered first), so drains still in
 * flight finish before the store closes.
 */
export function setupAlerts(app: FastifyInstance, deps: AlertDeps): AlertService {
  const { store, bus, config, baseUrl, metrics } = deps
  const worker = new AlertWorker(
    store,
    {
      ...config.alerts,
      ...(metrics !== undefined ? { onAttempt: metrics.delivery.bind(metrics) } : {}),
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
  const drain = new DecisionDrain(store, triggers, {
    onCreated: () => worker.wake(),
    onError: (err) => app.log.warn({ err }, 'alert decision drain failed'),
  })
  // This node's own new issues and regressions are drained at once, its other events (which
  // may have met a frequency rule) once per FREQUENCY_DRAIN_MS; other nodes' by the poll.
  let soon: NodeJS.Timeout | undefined
  const onStored = (e: { issueCreated: boolean; regressed: boolean }) => {
    if (e.issueCreated || e.regressed) {
      drain.drain().catch(() => undefined)
      return
    }
    soon ??= setTimeout(() => {
      soon = undefined
      drain.drain().catch(() => undefined)
    }, FREQUENCY_DRAIN_MS).unref()
  }
  bus.on('event.stored', onStored)
  const service: AlertService = {
    triggers,
    drain,
    worker,
    idle: async () => {
      await drain.drain()
    },
  }
  app.decorate('alerts', service)
  app.addHook('onReady', async () => {
    worker.start()
    drain.start(config.alerts.pollMs)
  })
  app.addHook('preClose', async () => {
    clearTimeout(soon)
    await drain.stop()
    await worker.stop()
  })
  app.addHook('onClose', async () => {
    bus.off('event.stored', onStored)
  })
  return service
}
