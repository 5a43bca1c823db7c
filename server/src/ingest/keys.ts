import { LRUCache } from 'lru-cache'
import { ApiError } from '../errors.ts'
import type { PrivacySettings } from '../privacy/settings.ts'
import type { PrivacyStore } from '../store/privacy-types.ts'
import type { Project, ProjectKey, ProjectStore } from '../store/types.ts'
import type { Credentials } from './auth.ts'

/** A key that may ingest, with its project and the project's scrubbing and filter settings. */
export interface ResolvedKey {
  key: ProjectKey
  project: Project
  /** Absent for events the server makes itself: a new project's defaults apply. */
  privacy?: PrivacySettings
}

/**
 * Key → project lookups with a short-lived in-memory cache, so the hot path does not hit the
 * database per request. Entries expire after `ttlMs` so a key revoked on another node stops
 * working within that time; revocations on this node invalidate at once. A bounded LRU
 * (`lru-cache`): a flood of random keys evicts the least used entries, not every valid one.
 */
export class KeyResolver {
  // One read per key however many requests miss at once (the cache's fetch is single-flight);
  // they then go on in the order they came. Separate reads could finish in any order (each may
  // wait for a new PostgreSQL connection), letting a run's `ok` check-in overtake its
  // `in_progress`. A read in flight when the cache is cleared still answers its callers but
  // does not refill the cache (`ignoreFetchAbort`: the cleared entry is no longer its own).
  private readonly cache: LRUCache<string, { value: ResolvedKey | null }>

  constructor(store: ProjectStore & PrivacyStore, ttlMs = 30_000) {
    this.cache = new LRUCache<string, { value: ResolvedKey | null }>({
      max: 10_000,
      ttl: ttlMs,
      ignoreFetchAbort: true,
      fetchMethod: async (publicKey) => {
        const key = await store.findKey(publicKey)
        const project = key === undefined ? undefined : await store.getProject(key.projectId)
        // Read with the key, so a settings change reaches ingest through the same cache and the
        // same change-feed notice (`projects`) as a project change.
        const privacy =
          project === undefined ? undefined : await store.getPrivacySettings(project.id)
        return {
          value:
            key !== undefined && project !== undefined && privacy !== undefined
              ? { key, project, privacy }
              : null,
        }
      },
    })
  }

  /** Forgets cached keys (after a key is created or revoked). */
  invalidate(): void {
    this.cache.clear()
  }

  private async lookup(publicKey: string): Promise<ResolvedKey | null> {
    const found = await this.cache.fetch(publicKey)
    return found?.value ?? null
  }

  /** Resolves credentials for an ingest into `pathProjectId`: 403 for unknown, revoked or foreign keys. */
  async resolve(creds: Credentials, pathProjectId: number): Promise<ResolvedKey> {
    const found = await this.lookup(creds.publicKey)
    if (found === null)
      throw new ApiError('unknown_key', 'event submission rejected: unknown public key')
    if (found.key.revokedAt !== null) {
      throw new ApiError('revoked_key', 'event submission rejected: this key was revoked')
    }
    if (found.project.id !== pathProjectId) {
      throw new ApiError(
        'wrong_project',
        `event submission rejected: the key belongs to project ${found.project.id}, not ${pathProjectId}`,
      )
    }
    if (creds.dsnProjectId !== undefined && creds.dsnProjectId !== String(pathProjectId)) {
      throw new ApiError(
        'wrong_project',
        'event submission rejected: the dsn names another project',
      )
    }
    return found
  }
}
