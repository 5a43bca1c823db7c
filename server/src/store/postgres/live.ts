import type { NoticeChannel } from '../notice-channel.ts'

/** One stored event to announce to every node. */
export interface StoredNotice {
  projectId: number
  eventId: string
  issueCreated: boolean
  regressed: boolean
}

/**
 * Sends one `NOTIFY` per stored event on `channel`, in one statement: the payload carries the
 * event's row id (read here, so every node names the notice the same), its issue and flags.
 * A payload is ≈150 bytes, far under PostgreSQL's 8000-byte limit.
 */
export async function notifyStored(
  db: Pick<NoticeChannel, 'notify'>,
  channel: string,
  notices: readonly StoredNotice[],
): Promise<void> {
  if (notices.length === 0) return
  await db.notify(
    `SELECT pg_notify($1, json_build_object('id', e.id, 'projectId', n.p, 'issueId', e.issue_id,
       'eventId', n.e, 'issueCreated', n.c, 'regressed', n.r)::text)
     FROM unnest($2::bigint[], $3::text[], $4::bool[], $5::bool[]) AS n(p, e, c, r)
     JOIN events e ON e.project_id = n.p AND e.event_id = n.e`,
    [
      channel,
      notices.map((n) => n.projectId),
      notices.map((n) => n.eventId),
      notices.map((n) => n.issueCreated),
      notices.map((n) => n.regressed),
    ],
  )
}
