import type { LiveBus } from '../live/bus.ts'
import type { GroupCommitter } from '../store/group-commit.ts'
import type { EventWriteResult, WriteUnit, WriteUnitResult } from '../store/types.ts'

/**
 * Announces what a commit stored: one `event.stored` per new event (duplicates are skipped),
 * which the live UI, alerts and triage listen to. Shared by the ingest routes and by events the
 * server makes itself (cron failures), so every stored event is announced the same way.
 */
export function announceStored(
  bus: LiveBus,
  projectId: number,
  events: readonly EventWriteResult[],
): void {
  for (const e of events) {
    if (e.duplicate) continue
    bus.emit('event.stored', {
      projectId,
      issueId: e.issueId,
      eventId: e.eventId,
      issueCreated: e.issueCreated,
      regressed: e.regressed,
      rowId: e.rowId,
    })
  }
}

/** Writes one project's unit through the group commit, then announces its new events. */
export async function commitAndAnnounce(
  deps: { committer: GroupCommitter; bus: LiveBus },
  projectId: number,
  unit: WriteUnit,
): Promise<WriteUnitResult> {
  const result = await deps.committer.write(unit)
  announceStored(deps.bus, projectId, result.events)
  return result
}
