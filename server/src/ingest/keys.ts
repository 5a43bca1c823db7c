import { ApiError } from '../errors.ts'
import type { Project, ProjectKey, ProjectStore } from '../store/types.ts'
import type { Credentials } from './auth.ts'

/** A key that may ingest, with its project. */
export interface ResolvedKey {
  key: ProjectKey
  project: Project
}

/**
 * Key → project lookups with a short-lived in-memory cache, so the hot path does not hit the
 * database per request. Entries expire after `ttlMs` so a key revoked on another node stops
 * working within that time; revocations on this node invalidate at once.
 */
export class KeyResolver {
  private readonly cache = new Map<string, { value: ResolvedKey | null; at: number }>()
  private readonly store: ProjectStore
  private readonly ttlMs: number

  constructor(store: ProjectStore, ttlMs = 30_000) {
    this.store = store
    this.ttlMs = ttlMs
  }

  /** Forgets cached keys (after a key is created or revoked). */
  invalidate(): void {
    this.cache.clear()
  }

  private async lookup(publicKey: string): Promise<ResolvedKey | null> {
    const hit = this.cache.get(publicKey)
    if (hit !== undefined && Date.now() - hit.at < this.ttlMs) return hit.value
    const key = await this.store.findKey(publicKey)
    const project = key === undefined ? undefined : await this.store.getProject(key.projectId)
    const value = key !== undefined && project !== undefined ? { key, project } : null
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
