import type { FastifyInstance } from 'fastify'
import type { Store } from '../store/types.ts'
import { ignoreExpiry } from './expiry.ts'

/** How often time-limited ignores are checked for expiry. */
const EXPIRY_INTERVAL_MS = 30_000

/** Starts the ignore-expiry sweep (on the lease holder) when the app is ready; stops it on close. */
export function setupTriage(app: FastifyInstance, store: Store): void {
  const expiry = ignoreExpiry(store, {
    intervalMs: EXPIRY_INTERVAL_MS,
    onError: (err) => app.log.warn({ err }, 'ignore expiry sweep failed'),
  })
  app.addHook('onReady', async () => expiry.start())
  app.addHook('preClose', async () => expiry.stop())
}
