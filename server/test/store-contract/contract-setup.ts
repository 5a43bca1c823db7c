import type { Store } from '../../src/store/types.ts'

/**
 * Opens a store and creates one project with a random slug and public key: the set-up every
 * contract case starts from, so cases sharing one database never collide.
 */
export async function openWithProject(open: () => Promise<Store>) {
  const store = await open()
  const { project, key } = await store.createProject(
    'P',
    `p-${Math.random().toString(36).slice(2)}`,
    Math.random().toString(16).slice(2).padEnd(32, '0'),
  )
  return { store, project, key }
}
