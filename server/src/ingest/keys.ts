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
 * working within that time; revocations on this node invalidate at once.
 */
export class KeyResolver {
  private readonly cache = new Map<string, { value: ResolvedKey | null; at: number }>()
  private readonly loading = new Map<string, Promise<ResolvedKey | null>>()
  /** Bumped by invalidate(): a read that began before it must not refill the cache. */
  private generation = 0
  private readonly store: ProjectStore & PrivacyStore
  private readonly ttlMs: number

  constructor(store: ProjectStore & PrivacyStore, ttlMs = 30_000) {
    this.store = store
    this.ttlMs = ttlMs
  }

  /** Forgets cached keys (after a key is created or revoked). */
  invalidate(): void {
    this.cache.clear()
    this.loading.clear()
    this.generation++
  }

  private async lookup(publicKey: string): Promise<ResolvedKey | null> {
    const hit = this.cache.get(publicKey)
    if (hit !== undefined && Date.now() - hit.at < this.ttlMs) return hit.value
    // One read per key however many requests miss at once; they then go on in the order they
    // came. Separate reads could finish in any order (each may wait for a new PostgreSQL
    // connection), letting a run's `ok` check-in overtake its `in_progress`.
    let pending = this.loading.get(publicKey)
    if (pending === undefined) {
      pending = this.read(publicKey).finally(() => this.loading.delete(publicKey))
      this.loading.set(publicKey, pending)
    }
    return pending
  }

  private async read(publicKey: string): Promise<ResolvedKey | null> {
    const generation = this.generation
    const key = await this.store.findKey(publicKey)
    const project = key === undefined ? undefined : await this.store.getProject(key.projectId)
    // Read with the key, so a settings change reaches ingest through the same cache and the
    // same change-feed notice (`projects`) as a project change.
    const privacy =
      project === undefined ? undefined : await this.store.getPrivacySettings(project.id)
    const value =
      key !== undefined && project !== undefined && privacy !== undefined
        ? { key, project, privacy }
        : null
    if (generation !== this.generation) return value
    if (this.cache.size > 10_000) this.cache.clear()
    this.cache.set(publicKey, { value, at: Date.now() })
    return value
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
