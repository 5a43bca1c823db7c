import { LRUCache } from 'lru-cache'
import type { ArtifactStore, StoredSourceMap } from '../../store/artifact-types.ts'
import type { IngestContext } from '../context.ts'
import { type LoadedMaps, rewriteFrames, sourceMapNeeds } from './frames.ts'
import { ParsedMap } from './parsed-map.ts'

/** How long a node trusts "this project has no bundles" / "no map for this key". */
const NEGATIVE_TTL_MS = 30_000
/** How often a bundle's `last_used_at` is written at most (retention reads it by the day). */
const TOUCH_EVERY_MS = 3_600_000
/** Bytes of an event payload that may be resolved (larger ones go to the digest as they are). */
const MAX_RESOLVED_PAYLOAD = 1024 * 1024

type Json = Record<string, unknown>

/** What the resolver logs (a Fastify logger fits). */
export interface ResolverLog {
  warn(obj: object, msg: string): void
}

/**
 * Resolves minified JavaScript frames against uploaded source maps (docs/source-maps.md), on
 * the main thread in front of the digest: {@link resolveQueued} rewrites the queued event
 * items of a request that can use a map, and the digest then parses, groups and stores the
 * original frames as it would any event. Parsed maps are cached, bounded in bytes; which
 * projects have bundles at all is cached too, so events of other projects pay one map lookup.
 */
export class SourceMapResolver {
  readonly #store: ArtifactStore
  readonly #log: ResolverLog
  /** Parsed maps by `project:debug:<id>` / `project:url:<release>:<dist>:<path>`; null: none. */
  readonly #maps: LRUCache<string, ParsedMap | 'none'>
  readonly #projects = new Map<number, { has: boolean; until: number }>()
  readonly #touched = new Map<number, number>()
  readonly #loading = new Map<string, Promise<ParsedMap | undefined>>()

  constructor(store: ArtifactStore, opts: { maxBytes: number; log: ResolverLog }) {
    this.#store = store
    this.#log = opts.log
    this.#maps = new LRUCache<string, ParsedMap | 'none'>({
      maxSize: Math.max(1024 * 1024, opts.maxBytes),
      sizeCalculation: (v) => (v === 'none' ? 64 : v.bytes),
      // A map larger than the whole cache is parsed for its event and not kept.
      maxEntrySize: Math.max(1024 * 1024, opts.maxBytes),
    })
  }

  /** Bytes the cached maps take (for the metrics and the bench). */
  get cachedBytes(): number {
    return this.#maps.calculatedSize
  }

  /** Forgets what this node cached for the projects of a new upload (other nodes: the TTL). */
  noteUpload(projectIds: readonly number[]): void {
    for (const id of projectIds) this.#projects.delete(id)
    for (const k of this.#maps.keys()) {
      if (this.#maps.peek(k) === 'none' && projectIds.some((p) => k.startsWith(`${p}:`))) {
        this.#maps.delete(k)
      }
    }
  }

  /** Whether a project has any bundle (cached; a "no" is asked again after 30 s). */
  async projectHasBundles(projectId: number, now = Date.now()): Promise<boolean> {
    const c = this.#projects.get(projectId)
    if (c !== undefined && (c.has || c.until > now)) return c.has
    const has = await this.#store.projectHasArtifacts(projectId)
    this.#projects.set(projectId, { has, until: now + NEGATIVE_TTL_MS })
    return has
  }

  /**
   * The ingest hook: rewrites, in place, the payload of each queued event item of the request
   * that a bundle of its project can resolve. Never fails the request: an event that cannot be
   * resolved (or is not JSON, which the digest then refuses as before) goes on as it came.
   */
  async resolveQueued(ctx: IngestContext): Promise<void> {
    if (ctx.digests.length === 0) return
    if (!(await this.projectHasBundles(ctx.project.id))) return
    for (const d of ctx.digests) {
      const p = d.payload
      if (p.byteLength > MAX_RESOLVED_PAYLOAD) continue
      const buf = Buffer.from(p.buffer, p.byteOffset, p.byteLength)
      // Frames with a position carry `lineno`; without one there is nothing to map.
      if (buf.indexOf('"lineno"') < 0) continue
      let event: unknown
      try {
        event = JSON.parse(buf.toString('utf8'))
      } catch {
        continue
      }
      if (typeof event !== 'object' || event === null || Array.isArray(event)) continue
      try {
        if (await this.resolveEvent(ctx.project.id, event as Json)) {
          d.payload = Buffer.from(JSON.stringify(event), 'utf8')
        }
      } catch (err) {
        this.#log.warn({ err, projectId: ctx.project.id }, 'source-map resolution failed')
      }
    }
  }

  /**
   * Resolves one event's frames in place (at ingest, or at display time for an event stored
   * before its bundle arrived). Returns whether the event changed.
   */
  async resolveEvent(projectId: number, event: Json, now = Date.now()): Promise<boolean> {
    const needs = sourceMapNeeds(event)
    if (needs === undefined) return false
    const maps: LoadedMaps = { byDebugId: new Map(), byUrl: new Map() }
    const jobs: Promise<void>[] = []
    for (const id of needs.debugIds) {
      jobs.push(
        this.#load(`${projectId}:debug:${id}`, () =>
          this.#store.sourceMapByDebugId(projectId, id),
        ).then((m) => {
          maps.byDebugId.set(id, m ?? null)
        }),
      )
    }
    const release = needs.release
    if (release !== null) {
      for (const [path, urls] of needs.urls) {
        jobs.push(
          this.#load(`${projectId}:url:${release}\n${needs.dist}\n${path}`, () =>
            this.#store.sourceMapByUrl(projectId, release, needs.dist, urls),
          ).then((m) => {
            maps.byUrl.set(path, m ?? null)
          }),
        )
      }
    }
    await Promise.all(jobs)
    const { changed, bundles } = rewriteFrames(event, needs, maps)
    this.#touch(bundles, now)
    return changed
  }

  /** A cached map, or the one the store has (parsed once even when events race for it). */
  async #load(
    key: string,
    fetch: () => Promise<StoredSourceMap | undefined>,
  ): Promise<ParsedMap | undefined> {
    const hit = this.#maps.get(key)
    if (hit !== undefined) return hit === 'none' ? undefined : hit
    const pending = this.#loading.get(key)
    if (pending !== undefined) return pending
    const job = (async () => {
      const stored = await fetch()
      if (stored === undefined) {
        this.#maps.set(key, 'none', { ttl: NEGATIVE_TTL_MS })
        return undefined
      }
      const parsed = new ParsedMap(stored)
      this.#maps.set(key, parsed)
      return parsed
    })()
    this.#loading.set(key, job)
    try {
      return await job
    } finally {
      this.#loading.delete(key)
    }
  }

  #touch(bundles: Set<number>, now: number): void {
    const due = [...bundles].filter((b) => (this.#touched.get(b) ?? 0) + TOUCH_EVERY_MS <= now)
    if (due.length === 0) return
    for (const b of due) this.#touched.set(b, now)
    this.#store.touchArtifactBundles(due, now).catch((err: unknown) => {
      this.#log.warn({ err }, 'could not mark source-map bundles as used')
    })
  }
}
