import { EventEmitter } from 'node:events'

/** What the ingest path announces after a commit: the UI's live list and alerts listen. */
export interface LiveEvents {
  'event.stored': [
    {
      projectId: number
      issueId: number
      eventId: string
      issueCreated: boolean
      regressed: boolean
      /** The event's row id when the store read it back (PostgreSQL); else looked up. */
      rowId?: number | undefined
    },
  ]
}

/** A typed in-process event bus. */
export class LiveBus extends EventEmitter<LiveEvents> {}
