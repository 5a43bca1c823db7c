import type { NoticeChannel } from '../notice-channel.ts'

/** One stored event to announce to every node. */
export interface StoredNotice {
  projectId: number
  eventId: string
  issueCreated: boolean
  regressed: boolean
}

/** Notices per `NOTIFY`: ≈150 bytes each (at most ≈230), so a payload stays far under 8000. */
export const NOTICES_PER_NOTIFY = 30

/**
 * Sends the stored events' notices on `channel` in one statement, as one `NOTIFY` per
 * {@link NOTICES_PER_NOTIFY} events whose payload is a JSON array (one notification per event
 * cost PostgreSQL a quarter of a group commit's statement time): each notice carries the
 * event's row id (read here, so every node names the notice the same), its issue and flags.
 */
export async function notifyStored(
  db: Pick<NoticeChannel, 'notify'>,
  channel: string,
  notices: readonly StoredNotice[],
): Promise<void> {
  if (notices.length === 0) return
  await db.notify(
    `SELECT pg_notify($1, json_agg(json_build_object('id', e.id, 'projectId', n.p,
       'issueId', e.issue_id, 'eventId', n.e, 'issueCreated', n.c, 'regressed', n.r)
       ORDER BY n.k)::text)
     FROM unnest($2::bigint[], $3::text[], $4::bool[], $5::bool[]) WITH ORDINALITY AS n(p, e, c, r, k)
     JOIN events e ON e.project_id = n.p AND e.event_id = n.e
     GROUP BY (n.k - 1) / ${NOTICES_PER_NOTIFY}`,
    [
      channel,
      notices.map((n) => n.projectId),
      notices.map((n) => n.eventId),
      notices.map((n) => n.issueCreated),
      notices.map((n) => n.regressed),
    ],
  )
}
