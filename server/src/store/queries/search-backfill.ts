import type { NormalizedEvent } from '../../event/types.ts'
import { eventSearchFields, eventSearchString } from '../../search/event-tags.ts'
import { readStoredPayload } from '../payload-codec.ts'
import { newUsers, SearchSummaries } from '../search-summaries.ts'
import type { SearchBackfillStore } from '../search-types.ts'
import { type SqlPort, type Steps, step } from '../sql/port.ts'
import { join, sql } from '../sql/statement.ts'
import { issueKeyMasks } from '../tag-key-mask.ts'

/**
 * The search fields of a stored payload: the normalised event the server wrote, read back.
 * A payload the codec cannot read, or whose fields are not the normalised shapes (a row from
 * an older server), gives what it can: no tags rather than a failed batch.
 */
function storedFields(payload: string | Uint8Array): {
  tags: [string, string][]
  text: string
  type: string | null
  value: string | null
} {
  let e: Record<string, unknown>
  try {
    const parsed: unknown = JSON.parse(readStoredPayload(payload))
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return { tags: [], text: '', type: null, value: null }
    e = parsed as Record<string, unknown>
  } catch {
    return { tags: [], text: '', type: null, value: null }
  }
  const pairs = Array.isArray(e['tags']) ? (e['tags'] as unknown[]) : []
  e['tags'] = pairs.filter(
    (p): p is [string, string] =>
      Array.isArray(p) && typeof p[0] === 'string' && typeof p[1] === 'string',
  )
  const f = eventSearchFields(e as unknown as NormalizedEvent)
  // The event's type and value as grouping names them: its last (outermost) exception, else
  // its message.
  const exceptions = (e as { exception?: { values?: { type?: unknown; value?: unknown }[] } })
    .exception?.values
  const top = Array.isArray(exceptions) ? exceptions[exceptions.length - 1] : undefined
  const message = (e as { logentry?: { formatted?: unknown; message?: unknown } }).logentry
  const s = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null)
  return {
    tags: f.tags,
    text: f.text,
    type: s(top?.type),
    value: s(top?.value) ?? s(message?.formatted) ?? s(message?.message),
  }
}

/** An unindexed event read for the backfill, with the search fields of its payload. */
interface Unindexed {
  id: number | string
  issueId: number
  received: number | string
  fields: ReturnType<typeof storedFields>
}

/**
 * The writes of one batch, in one transaction: each event is marked indexed only if it still
 * is not (`search IS NULL`), and only those are counted, so a batch that raced another never
 * counts an event twice. The payloads were decoded before, outside the write lock.
 */
function* backfillBatch(dialect: SqlPort['dialect'], batch: readonly Unindexed[]): Steps<number> {
  const summaries = new SearchSummaries()
  const texts = new Map<number, string>()
  // Which events this batch marks: SQLite one UPDATE per event (no round trips), PostgreSQL
  // one UPDATE of all of them (a round trip per statement would hold the batch's row locks
  // for a round trip per event).
  const marked = new Set<number>()
  const searchOf = (r: Unindexed) => eventSearchString(r.fields.tags, r.fields.type, r.fields.value)
  if (dialect === 'sqlite') {
    for (const r of batch) {
      const changed = yield* step.run(
        sql`UPDATE events SET search = ${searchOf(r)}
            WHERE id = ${r.id} AND received = ${r.received} AND search IS NULL`,
      )
      if (changed === 1) marked.add(Number(r.id))
    }
  } else {
    const done = yield* step.all<{ id: number | string }>(
      sql`UPDATE events e SET search = v.search
          FROM unnest(${batch.map((r) => r.id)}::bigint[], ${batch.map((r) => r.received)}::bigint[],
            ${batch.map(searchOf)}::text[]) AS v(id, received, search)
          WHERE e.id = v.id AND e.received = v.received AND e.search IS NULL RETURNING e.id`,
    )
    for (const d of done) marked.add(Number(d.id))
  }
  let indexed = 0
  for (const r of batch) {
    if (!marked.has(Number(r.id))) continue
    indexed++
    summaries.addTags(r.issueId, r.fields.tags, Number(r.received))
    texts.set(Number(r.id), r.fields.text)
  }
  if (indexed === 0) return 0
  const tagRows = summaries.tags()
  let users: { issue_id: number | string; value: string; times_seen: number | string }[] = []
  if (dialect === 'sqlite') {
    for (const t of tagRows) {
      const after = yield* step.first<{ times_seen: number }>(
        sql`INSERT INTO issue_tags (issue_id, key, value, times_seen, first_seen, last_seen)
            VALUES (${t[0]}, ${t[1]}, ${t[2]}, ${t[3]}, ${t[4]}, ${t[5]})
            ON CONFLICT (issue_id, key, value) DO UPDATE SET
              times_seen = times_seen + excluded.times_seen,
              first_seen = min(first_seen, excluded.first_seen),
              last_seen = max(last_seen, excluded.last_seen)
            RETURNING times_seen`,
      )
      if (t[1] === 'user' && after !== undefined)
        users.push({ issue_id: t[0], value: t[2], times_seen: after.times_seen })
    }
  } else {
    // One upsert of every row, in key order as ingest's (concurrent ones lock alike).
    const col = (i: number) => tagRows.map((t) => t[i])
    users = yield* step.all<{
      issue_id: number | string
      value: string
      times_seen: number | string
    }>(
      sql`INSERT INTO issue_tags AS t (issue_id, key, value, times_seen, first_seen, last_seen)
          SELECT * FROM unnest(${col(0)}::bigint[], ${col(1)}::text[], ${col(2)}::text[],
            ${col(3)}::bigint[], ${col(4)}::bigint[], ${col(5)}::bigint[])
          ON CONFLICT (issue_id, key, value) DO UPDATE SET
            times_seen = t.times_seen + excluded.times_seen,
            first_seen = LEAST(t.first_seen, excluded.first_seen),
            last_seen = GREATEST(t.last_seen, excluded.last_seen)
          RETURNING CASE WHEN t.key = 'user' THEN t.issue_id END AS issue_id, t.value, t.times_seen`,
    )
    users = users.filter((u) => u.issue_id !== null)
  }
  for (const [issueId, n] of newUsers(tagRows, users))
    yield* step.run(sql`UPDATE issues SET users = users + ${n} WHERE id = ${issueId}`)
  for (const [issueId, mask] of issueKeyMasks(tagRows))
    yield* step.run(sql`UPDATE issues SET tag_keys = tag_keys | ${mask} WHERE id = ${issueId}`)
  // The text of the event that created its issue joins the issue's title and culprit, as
  // ingest writes it for an issue created since the search.
  const issueIds = [...new Set(batch.map((r) => r.issueId))]
  const firsts = yield* step.all<{
    id: number | string
    first: number | string
    title: string
    culprit: string
  }>(
    // A first-id lookup per issue on the events' (issue_id, id) index, not a MIN over all of
    // a big issue's events.
    sql`SELECT i.id, i.title, i.culprit, (SELECT MIN(e.id) FROM events e WHERE e.issue_id = i.id) AS first
        FROM issues i WHERE i.id IN (${join(
          issueIds.map((id) => sql`${id}`),
          ', ',
        )})`,
  )
  for (const f of firsts) {
    const text = texts.get(Number(f.first))
    if (text === undefined) continue
    const body = [f.title, f.culprit, text].join(' ')
    yield* step.run(
      dialect === 'sqlite'
        ? sql`INSERT OR REPLACE INTO issue_text (rowid, body) VALUES (${f.id}, ${body})`
        : sql`INSERT INTO issue_text (issue_id, body) VALUES (${f.id}, ${body})
              ON CONFLICT (issue_id) DO UPDATE SET body = excluded.body`,
    )
  }
  return indexed
}

/**
 * Indexes the events stored before the search indexes existed (docs/search.md): their tags
 * into `issue_tags` and `issues.users`, their `events.search`, and the text of an issue's
 * first event into `issue_text`, a bounded batch per transaction. Written once for both
 * backends; the lease-held job (store/search-backfill-job.ts) runs it.
 */
export function searchBackfillQueries(port: SqlPort): SearchBackfillStore {
  return {
    indexUnindexedEvents: async (limit) => {
      const rows = await port.all<{
        id: number | string
        issue_id: number | string
        received: number | string
        payload: string | Uint8Array
      }>(
        sql`SELECT id, issue_id, received, payload FROM events WHERE search IS NULL
            ORDER BY id LIMIT ${limit}`,
      )
      if (rows.length === 0) return 0
      const batch = rows.map((r) => ({
        id: r.id,
        issueId: Number(r.issue_id),
        received: r.received,
        fields: storedFields(r.payload),
      }))
      await port.transaction(() => backfillBatch(port.dialect, batch))
      // The rows read, not those this batch marked: one another node marked is done too.
      return rows.length
    },
  }
}
