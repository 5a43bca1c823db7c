import { LRUCache } from 'lru-cache'
import type { ArtifactStore, StoredSourceMap } from '../../store/artifact-types.ts'
import type { SourceMapMark } from '../../store/ingest-store.ts'
import type { IngestContext } from '../context.ts'
import { type LoadedMaps, rewriteFrames, sourceMapNeeds } from './frames.ts'
import { ParsedMap } from './parsed-map.ts'

/** How long a node trusts "this project has no bundles" / "no map for this key". */
const NEGATIVE_TTL_MS = 30_000
/**
 * How long a map found by release and URL is used before the store is asked again which map
 * that URL names now: a newer bundle of the same release (maps uploaded again after a rebuild)
 * or a deleted release file takes over on every node within this time. The answer is compared
 * by bundle and URL, so an unchanged map is not parsed again.
 */
const URL_RECHECK_MS = 30_000
/** How often a bundle's `last_used_at` is written at most (retention reads it by the day). */
const TOUCH_EVERY_MS = 3_600_000
/** Bytes of an event payload that may be resolved (larger ones go to the digest as they are). */
const MAX_RESOLVED_PAYLOAD = 1024 * 1024

type Json = Record<string, unknown>

/**
 * An event item's JSON object when it may carry positions to map (frames with a position carry
 * `lineno`), else undefined: larger than resolution takes, not JSON, not an object.
 */
function parseResolvable(p: Uint8Array): Json | undefined {
  if (p.byteLength > MAX_RESOLVED_PAYLOAD) return undefined
  const buf = Buffer.from(p.buffer, p.byteOffset, p.byteLength)
  if (buf.indexOf('"lineno"') < 0) return undefined
  let event: unknown
  try {
    event = JSON.parse(buf.toString('utf8'))
  } catch {
    return undefined
  }
  return typeof event === 'object' && event !== null && !Array.isArray(event)
    ? (event as Json)
    : undefined
}

/** What the resolver logs (a Fastify logger fits). */
export interface ResolverLog {
  warn(obj: object, msg: string): void
}

/**
 * Resolves minified JavaScript frames against uploaded source maps (docs/source-maps.md), in
 * front of the digest, so it groups and stores the original frames as it would any event.
 * Where the digest runs on the store's write (the default: the SQLite writer thread, or the
 * main thread in front of a PostgreSQL write), {@link resolveQueued} only marks the request's
 * events of a project with bundles and the digest resolves them on the event it parses anyway
 * ({@link resolveParsed}, ingest/digest-on-write.ts): no second JSON parse and serialisation,
 * and nothing on the thread that serves HTTP. With digest threads it rewrites the queued items
 * here. Parsed maps are cached, bounded in bytes; which projects have bundles at all is cached
 * too, so events of other projects pay one map lookup.
 */
export class SourceMapResolver {
  readonly #store: ArtifactStore
  readonly #log: ResolverLog
  readonly #deferred: boolean
  /** Uploads this node saw (the mark on deferred events; see {@link resolveParsed}). */
  #uploads = 0
  /** The largest upload count of a resolved event: a larger one forgets the cached misses. */
  #uploadsSeen = 0
  /** Removals this node saw (release files deleted), the other half of the mark. */
  #removals = 0
  /** The largest removal count of a resolved event: a larger one forgets every cached map. */
  #removalsSeen = 0
  /** Parsed maps by `project:debug:<id>` / `project:url:<release>:<dist>:<path>`; null: none. */
  readonly #maps: LRUCache<string, ParsedMap | 'none'>
  /** When each map found by release and URL was last confirmed by the store. */
  readonly #checked = new Map<string, number>()
  readonly #projects = new Map<number, { has: boolean; until: number }>()
  readonly #touched = new Map<number, number>()
  readonly #loading = new Map<string, Promise<ParsedMap | undefined>>()

  /**
   * `deferred`: the digest runs on the store's write and resolves the events there (see the
   * class comment); otherwise {@link resolveQueued} rewrites them before they go to the digest.
   */
  constructor(
    store: ArtifactStore,
    opts: { maxBytes: number; log: ResolverLog; deferred?: boolean },
  ) {
    this.#store = store
    this.#log = opts.log
    this.#deferred = opts.deferred ?? false
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
    this.#uploads++
    for (const id of projectIds) this.#projects.delete(id)
    for (const k of this.#maps.keys()) {
      if (!projectIds.some((p) => k.startsWith(`${p}:`))) continue
      // A miss may be found now; a map found by URL may be replaced by the new bundle's.
      if (this.#maps.peek(k) === 'none' || k.includes(':url:')) this.#maps.delete(k)
    }
  }

  /**
   * Forgets every map this node cached for the projects of a removed upload (a release file
   * deleted), so their next events no longer resolve through it (other nodes: LRU eviction).
   */
  noteRemoval(projectIds: readonly number[]): void {
    this.#removals++
    for (const id of projectIds) this.#projects.delete(id)
    for (const k of this.#maps.keys()) {
      if (projectIds.some((p) => k.startsWith(`${p}:`))) this.#maps.delete(k)
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
    if (this.#deferred) {
      ctx.sourceMaps = { uploads: this.#uploads, removals: this.#removals }
      return
    }
    for (const d of ctx.digests) {
      const event = parseResolvable(d.payload)
      if (event === undefined) continue
      try {
        if (await this.resolveEvent(ctx.project.id, event)) {
          d.payload = Buffer.from(JSON.stringify(event), 'utf8')
        }
      } catch (err) {
        this.#log.warn({ err, projectId: ctx.project.id }, 'source-map resolution failed')
      }
    }
  }

  /**
   * The digest's side of a deferred resolution: parses an event item marked by
   * {@link resolveQueued} and resolves its frames in place. Returns the parsed event for the
   * digest (which then does not parse it again), or undefined when the digest should take the
   * bytes as they came (not a JSON object, too large, no positions). `mark` holds the
   * receiving node's counts of uploads and removals, so a bundle uploaded since a cached miss
   * is found and a release file deleted since is no longer used from this cache.
   */
  async resolveParsed(
    projectId: number,
    payload: Uint8Array,
    mark: SourceMapMark,
  ): Promise<Json | undefined> {
    if (mark.removals > this.#removalsSeen) {
      this.#removalsSeen = mark.removals
      // Another thread's cache (the SQLite writer's): which maps went is not known here, and
      // removals are rare, so every cached map goes.
      if (mark.removals > this.#removals) {
        this.#maps.clear()
        this.#checked.clear()
        this.#projects.clear()
      }
    }
    if (mark.uploads > this.#uploadsSeen) {
      this.#uploadsSeen = mark.uploads
      if (mark.uploads > this.#uploads) this.#forgetAfterUpload()
    }
    const event = parseResolvable(payload)
    if (event === undefined) return undefined
    try {
      await this.resolveEvent(projectId, event)
    } catch (err) {
      this.#log.warn({ err, projectId }, 'source-map resolution failed')
    }
    return event
  }

  /**
   * Drops every cached "no map" answer and every map found by release and URL (an upload this
   * cache did not hear of may hold the map, or a newer one for the URL).
   */
  #forgetAfterUpload(): void {
    for (const k of this.#maps.keys()) {
      if (this.#maps.peek(k) === 'none' || k.includes(':url:')) this.#maps.delete(k)
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
    // Cached maps are taken at once: the usual event costs no promise per map.
    const take = (
      into: Map<string, ParsedMap | null>,
      k: string,
      key: string,
      fetch: () => Promise<StoredSourceMap | undefined>,
    ): void => {
      const hit = this.#maps.get(key)
      if (hit !== undefined && !this.#stale(key, hit, now)) into.set(k, hit === 'none' ? null : hit)
      else jobs.push(this.#load(key, fetch, now).then((m) => void into.set(k, m ?? null)))
    }
    for (const id of needs.debugIds) {
      take(maps.byDebugId, id, `${projectId}:debug:${id}`, () =>
        this.#store.sourceMapByDebugId(projectId, id),
      )
    }
    const release = needs.release
    if (release !== null) {
      for (const [path, urls] of needs.urls) {
        take(maps.byUrl, path, `${projectId}:url:${release}\n${needs.dist}\n${path}`, () =>
          this.#store.sourceMapByUrl(projectId, release, needs.dist, urls),
        )
      }
    }
    if (jobs.length > 0) await Promise.all(jobs)
    const { changed, bundles } = rewriteFrames(event, needs, maps)
    this.#touch(bundles, now)
    return changed
  }

  /** A cached map, or the one the store has (parsed once even when events race for it). */
  async #load(
    key: string,
    fetch: () => Promise<StoredSourceMap | undefined>,
    now: number,
  ): Promise<ParsedMap | undefined> {
    const hit = this.#maps.get(key)
    if (hit !== undefined && !this.#stale(key, hit, now)) return hit === 'none' ? undefined : hit
    const pending = this.#loading.get(key)
    if (pending !== undefined) return pending
    const job = (async () => {
      const stored = await fetch()
      if (stored === undefined) {
        this.#checked.delete(key)
        this.#maps.set(key, 'none', { ttl: NEGATIVE_TTL_MS })
        return undefined
      }
      if (key.includes(':url:')) this.#checked.set(key, now)
      // The map the cache holds, still the one the store names: kept, not parsed again.
      if (hit instanceof ParsedMap && sameMap(hit, stored)) return hit
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

  /** Whether a cached map found by release and URL is due to be confirmed by the store. */
  #stale(key: string, hit: ParsedMap | 'none', now: number): boolean {
    if (hit === 'none' || !key.includes(':url:')) return false
    const at = this.#checked.get(key)
    return at === undefined || at + URL_RECHECK_MS <= now
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

/** Whether a stored map is the one a parsed map was made from (same bundles, same file). */
function sameMap(parsed: ParsedMap, stored: StoredSourceMap): boolean {
  return (
    parsed.bundleId === stored.bundleId &&
    parsed.minifiedBundleId === stored.minifiedBundleId &&
    parsed.url === stored.url
  )
}
