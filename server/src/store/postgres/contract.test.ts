import { afterAll, beforeEach } from 'vitest'
import { alertContract } from '../../../test/store-contract/alerts-contract.ts'
import { BACKEND_SKIPS } from '../../../test/store-contract/backend-skips.ts'
import { storeContract } from '../../../test/store-contract/contract.ts'
import { monitorContract } from '../../../test/store-contract/monitors-contract.ts'
import { quotaContract } from '../../../test/store-contract/quotas-contract.ts'
import { releaseHealthContract } from '../../../test/store-contract/release-health-contract.ts'
import { retentionContract } from '../../../test/store-contract/retention-contract.ts'
import { searchContract } from '../../../test/store-contract/search-contract.ts'
import { uiStoreContract } from '../../../test/store-contract/ui-contract.ts'
import { userLifecycleContract } from '../../../test/store-contract/user-lifecycle-contract.ts'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import type { Store } from '../store.ts'
import { openPostgresStore } from './index.ts'

// Every contract suite, unchanged, on a real PostgreSQL: like SQLite's `:memory:`, every
// open() gets an empty database of its own (some cases count rows across the whole store).
// Cases that fail before their own close() leave pools open: close them before the drops.
const opened: Store[] = []
afterAll(async () => {
  await Promise.allSettled(opened.map((s) => s.close()))
})
beforeEach((ctx) => {
  const names: string[] = []
  for (let s = ctx.task.suite; s !== undefined && s.name !== ''; s = s.suite) names.unshift(s.name)
  const reason = BACKEND_SKIPS.postgres[[...names, ctx.task.name].join(' > ')]
  if (reason !== undefined) ctx.skip()
})

const open = async (): Promise<Store> => {
  const db: TestDatabase = await createTestDatabase()
  const store = await openPostgresStore(db.url, { poolSize: 2 })
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await store.close()
    await db.drop()
  }
  opened.push({ ...store, close })
  return { ...store, close }
}

storeContract('postgres', open)
quotaContract('postgres', open)
releaseHealthContract('postgres', open)
monitorContract('postgres', open)
alertContract('postgres', open)
uiStoreContract('postgres', open)
retentionContract('postgres', open)
userLifecycleContract('postgres', open)
searchContract('postgres', open)
