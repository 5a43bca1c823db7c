import { afterEach, describe, expect, it } from 'vitest'
import type { PrivacyStore } from '../store/privacy-types.ts'
import { openSqliteStore } from '../store/sqlite/index.ts'
import type { ProjectStore, Store } from '../store/types.ts'
import { KeyResolver } from './keys.ts'

let store: Store | undefined
afterEach(async () => {
  await store?.close()
  store = undefined
})

/** The real store's key reads, counted. */
function counted(s: Store): { reads: () => number; projects: ProjectStore & PrivacyStore } {
  let n = 0
  const projects = {
    ...s,
    findKey: (publicKey: string) => {
      n++
      return s.findKey(publicKey)
    },
  } as ProjectStore & PrivacyStore
  return { reads: () => n, projects }
}

describe('KeyResolver', () => {
  it('reads a key once for many concurrent misses, then serves it from the cache', async () => {
    store = await openSqliteStore(':memory:')
    const { project, key } = await store.createProject('P', 'p', 'c'.repeat(32))
    const { reads, projects } = counted(store)
    const keys = new KeyResolver(projects)
    const creds = { publicKey: key.publicKey, source: 'header' as const }
    const found = await Promise.all(
      Array.from({ length: 20 }, () => keys.resolve(creds, project.id)),
    )
    expect(found.map((f) => f.key.id)).toEqual(Array(20).fill(key.id))
    expect(reads()).toBe(1)
    await keys.resolve(creds, project.id)
    expect(reads()).toBe(1)
  })

  it('answers a read in flight when invalidated, but reads again afterwards', async () => {
    store = await openSqliteStore(':memory:')
    const { project, key } = await store.createProject('P', 'p', 'd'.repeat(32))
    const { reads, projects } = counted(store)
    const keys = new KeyResolver(projects)
    const creds = { publicKey: key.publicKey, source: 'header' as const }
    const inFlight = keys.resolve(creds, project.id)
    keys.invalidate()
    expect((await inFlight).key.id).toBe(key.id)
    await store.revokeKey(project.id, key.id)
    // The read that began before the invalidation did not refill the cache.
    await expect(keys.resolve(creds, project.id)).rejects.toThrow('this key was revoked')
    expect(reads()).toBe(2)
  })

  it('caches an unknown key as unknown, within the time limit', async () => {
    store = await openSqliteStore(':memory:')
    const { project } = await store.createProject('P', 'p', 'e'.repeat(32))
    const { reads, projects } = counted(store)
    const keys = new KeyResolver(projects)
    const creds = { publicKey: 'f'.repeat(32), source: 'header' as const }
    await expect(keys.resolve(creds, project.id)).rejects.toThrow('unknown public key')
    await expect(keys.resolve(creds, project.id)).rejects.toThrow('unknown public key')
    expect(reads()).toBe(1)
  })
})
