import type { FastifyInstance } from 'fastify'
import type { Store } from '../store/types.ts'
import type { KeyResolver } from './keys.ts'
import type { QuotaGate } from './quota.ts'

/**
 * Drops the ingest caches' entries when the store's change feed says what they hold changed
 * on any node (store/change-feed.ts): keys and projects from the key cache, a project's last
 * quota window from the quota headers. The caches keep their own time limits as a backstop.
 */
export function dropStaleIngestCaches(
  app: FastifyInstance,
  services: { store: Pick<Store, 'changes'>; keys: KeyResolver; quota: QuotaGate },
): void {
  const off = services.store.changes.onChange((c) => {
    if (c.topic === 'keys' || c.topic === 'projects' || c.topic === 'all')
      services.keys.invalidate()
    if (c.topic === 'all') services.quota.clear()
    else if (c.topic === 'quotas' && c.projectId !== undefined)
      services.quota.set(c.projectId, null)
  })
  app.addHook('onClose', async () => off())
}
