import type { NoticeChannel } from '../notice-channel.ts'

/** One stored event to announce to every node. */
export interface StoredNotice {
  projectId: number
  eventId: string
  issueCreated: boolean
  regressed: boolean
  /** Its issue and row id, when the write read the row id back (then nothing is looked up). */
  issueId?: number | undefined
  rowId?: number | undefined
}

/** How far back a just-stored event's `received` can be when its notice is sent. */
const NOTICE_WINDOW_MS = 3_600_000

/** Notices per `NOTIFY`: ≈150 bytes each (at most ≈230), so a payload stays far under 8000. */
export const NOTICES_PER_NOTIFY = 30

/**
 * Sends the stored events' notices on `channel`, as one `NOTIFY` per
 * {@link NOTICES_PER_NOTIFY} events whose payload is a JSON array (one notification per event
 * cost PostgreSQL a quarter of a group commit's statement time): each notice carries the
 * event's row id (so every node names the notice the same), its issue and flags. The ingest
 * write reads row ids back with its insert, so its notices need no lookup; others are looked
 * up by event id in the same statement as their `NOTIFY`.
 */
export async function notifyStored(
  db: Pick<NoticeChannel, 'notify'>,
  channel: string,
  notices: readonly StoredNotice[],
): Promise<void> {
  const known: string[] = []
  const unknown: StoredNotice[] = []
  for (const n of notices) {
    if (n.rowId === undefined || n.issueId === undefined) unknown.push(n)
    else
      known.push(
        JSON.stringify({
          id: n.rowId,
          projectId: n.projectId,
          issueId: n.issueId,
          eventId: n.eventId,
          issueCreated: n.issueCreated,
          regressed: n.regressed,
        }),
      )
  }
  if (known.length > 0) {
    const payloads: string[] = []
    for (let i = 0; i < known.length; i += NOTICES_PER_NOTIFY)
      payloads.push(`[${known.slice(i, i + NOTICES_PER_NOTIFY).join(',')}]`)
    // One parameter per payload: a `text[]` of JSON would be escaped quote by quote.
    const calls = payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(', ')
    await db.notify(`SELECT ${calls}`, [channel, ...payloads])
  }
  if (unknown.length > 0) await notifyLookedUp(db, channel, unknown)
}

/** The notices of events whose row id the write did not read back: looked up by event id. */
async function notifyLookedUp(
  db: Pick<NoticeChannel, 'notify'>,
  channel: string,
  notices: readonly StoredNotice[],
): Promise<void> {
  await db.notify(
    `SELECT pg_notify($1, json_agg(json_build_object('id', e.id, 'projectId', n.p,
       'issueId', e.issue_id, 'eventId', n.e, 'issueCreated', n.c, 'regressed', n.r)
       ORDER BY n.k)::text)
     FROM unnest($2::bigint[], $3::text[], $4::bool[], $5::bool[]) WITH ORDINALITY AS n(p, e, c, r, k)
     JOIN events e ON e.project_id = n.p AND e.event_id = n.e AND e.received >= $6
     GROUP BY (n.k - 1) / ${NOTICES_PER_NOTIFY}`,
    [
      channel,
      notices.map((n) => n.projectId),
      notices.map((n) => n.eventId),
      notices.map((n) => n.issueCreated),
      notices.map((n) => n.regressed),
      // Only the partitions of the last hour are searched (events are partitioned by day of
      // `received`, which this node set moments ago): without it each notice probed every
      // day's partition, up to the retention period's.
      Date.now() - NOTICE_WINDOW_MS,
    ],
  )
}
