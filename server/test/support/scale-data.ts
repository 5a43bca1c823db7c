import type { EventToWrite, Store, WriteUnit } from '../../src/store/types.ts'

/** The generated history's shape: what the scale tests assert against. */
export const SCALE = {
  events: 50_000,
  issues: 2_000,
  /** Every issue has seen `production`; one in ten issues has also seen `staging`. */
  environments: ['production', 'staging'],
  /** Issue i is on release `app@(i % 20)`. */
  releases: 20,
  /** One event a minute, so the history spans about 35 days up to `end`. */
  stepMs: 60_000,
} as const

/**
 * Writes a realistic-size history (50,000 events in 2,000 issues, spread over ~35 days) through
 * the store's own write path, so the page summaries are maintained exactly as at ingest. Seconds
 * on SQLite in memory; the payload is small because no page read touches it.
 */
export async function writeScaleHistory(
  store: Pick<Store, 'write'>,
  projectId: number,
  keyId: number,
  end: number,
): Promise<void> {
  const PER_COMMIT = 1000
  for (let start = 0; start < SCALE.events; start += PER_COMMIT) {
    const events: EventToWrite[] = []
    for (let n = start; n < start + PER_COMMIT; n++) {
      const issue = n % SCALE.issues
      const received = end - (SCALE.events - n) * SCALE.stepMs
      events.push({
        projectId,
        keyId,
        eventId: n.toString(16).padStart(32, '0'),
        timestamp: received,
        received,
        level: 'error',
        title: `TypeError: scale issue ${issue}`,
        culprit: `app/module-${issue}.js in handler`,
        type: 'TypeError',
        value: `scale issue ${issue}`,
        release: `app@${issue % SCALE.releases}`,
        environment: issue % 10 === 0 && n % 3 === 0 ? 'staging' : 'production',
        component: null,
        hash: `scale-${issue}`,
        groupingVersion: 'test',
        payload: `{"event_id":"${n.toString(16).padStart(32, '0')}"}`,
      })
    }
    const unit: WriteUnit = { events, outcomes: [] }
    await store.write([unit])
  }
}
