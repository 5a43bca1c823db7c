/** A stored event as the live stream names it: its row id is the stream's resumable id. */
export interface LiveEventRow {
  /** The event's row id: the same on every node, ascending in commit order on SQLite. */
  id: number
  issueId: number
  eventId: string
}

/** Reads behind the live stream (live/): notice ids of new events and the replay on resume. */
export interface LiveStore {
  /** The row ids of stored events of one project, by event id (missing ones are left out). */
  liveEventIds(projectId: number, eventIds: readonly string[]): Promise<LiveEventRow[]>
  /** The newest `limit` events of a project with a row id above `afterId`, ascending. */
  liveEventsAfter(projectId: number, afterId: number, limit: number): Promise<LiveEventRow[]>
}
