/**
 * The project and key the in-process microbenches digest under (digest.ts, sourcemap-resolve.ts):
 * plain records shaped as the store returns them, so no database is needed.
 */
export const BENCH_PROJECT = { id: 1, slug: 'bench', name: 'bench', createdAt: 0, teamId: 1 }

/** The bench project's key (no component). */
export const BENCH_KEY = {
  id: 1,
  projectId: 1,
  publicKey: 'fixture0000000000000000000000000',
  label: 'Default',
  component: null,
  createdAt: 0,
  revokedAt: null,
}
