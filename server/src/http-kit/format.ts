import type { NormalizedEvent } from '../event/types.ts'
import { shownEventTags } from '../search/event-tags.ts'
import type { Issue, Project, ProjectKey, StoredEvent } from '../store/types.ts'

/** Builds a DSN from the public base URL, key and project id. */
export function dsnOf(baseUrl: string, publicKey: string, projectId: number): string {
  const u = new URL(baseUrl)
  return `${u.protocol}//${publicKey}@${u.host}${u.pathname.replace(/\/$/, '')}/${projectId}`
}

/** Epoch milliseconds as the API writes times (ISO 8601, UTC). */
export const iso = (ms: number): string => new Date(ms).toISOString()

/** Project as the API shows it. */
export const projectJson = (p: Project, dsn: string) => ({
  id: p.id,
  slug: p.slug,
  name: p.name,
  dsn,
  created_at: iso(p.createdAt),
  team_id: p.teamId,
})

/** DSN key as the API shows it. */
export const keyJson = (k: ProjectKey, baseUrl: string) => ({
  id: k.id,
  label: k.label,
  component: k.component,
  public_key: k.publicKey,
  dsn: dsnOf(baseUrl, k.publicKey, k.projectId),
  created_at: iso(k.createdAt),
  revoked: k.revokedAt !== null,
})

/** Issue as the API shows it. */
export const issueJson = (i: Issue) => ({
  id: i.id,
  project_id: i.projectId,
  title: i.title,
  culprit: i.culprit,
  level: i.level,
  status: i.status,
  count: i.timesSeen,
  /** Distinct users (Sentry's `userCount`). */
  user_count: i.users,
  first_seen: iso(i.firstSeen),
  last_seen: iso(i.lastSeen),
  /** As Sentry's: the exception's type and value (null for a message), and the issue's title. */
  metadata: { type: i.type, value: i.value, title: i.title },
  grouping_version: i.groupingVersion,
  for_review: i.forReview,
  ignore_until: i.ignoreUntil === null ? null : iso(i.ignoreUntil),
  /** How many more events end the ignore (the condition `ignore_count` set). */
  ignore_count: i.ignoreUntilSeen === null ? null : Math.max(0, i.ignoreUntilSeen - i.timesSeen),
})

/** Most tags an event's answer lists (the page shows as many). */
const MAX_EVENT_TAGS = 200

/**
 * An event's `tags` as pairs: the SDK's as stored, at their positions (the scrubber's `_meta`
 * remarks name them by position), then those derived from its fields that the SDK did not send
 * (level, url, browser, user …: `shownEventTags`, what its page lists), so the answer holds the
 * tags Sentry's stored event holds; undefined for a payload whose `tags` is no list (left as
 * stored).
 */
function apiTags(payload: Record<string, unknown>): unknown[] | undefined {
  const sent = payload['tags']
  if (!Array.isArray(sent)) return undefined
  const own = sent.filter(
    (p): p is [string, string] =>
      Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string',
  )
  let shown: [string, string][]
  try {
    shown = shownEventTags(payload as unknown as NormalizedEvent, own, MAX_EVENT_TAGS)
  } catch {
    return undefined
  }
  const keys = new Set(own.map(([k]) => k))
  return [...sent, ...shown.filter(([k]) => !keys.has(k))].slice(
    0,
    Math.max(sent.length, MAX_EVENT_TAGS),
  )
}

/** Stored event as the API shows it: the normalised payload plus where it was filed. */
export function eventJson(e: StoredEvent): {
  [field: string]: unknown
  event_id: string
  issue_id: number
  project_id: number
  component: string | null
  received: string
} {
  const payload = JSON.parse(e.payload) as Record<string, unknown>
  const tags = apiTags(payload)
  return {
    ...payload,
    ...(tags === undefined ? {} : { tags }),
    event_id: e.eventId,
    issue_id: e.issueId,
    project_id: e.projectId,
    component: e.component,
    received: iso(e.received),
  }
}
