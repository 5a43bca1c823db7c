import { clockDrift } from '../event/clock.ts'
import type { PrivacySettings } from '../privacy/settings.ts'
import type { SourceMapMark } from '../store/ingest-store.ts'
import type { EventToWrite, OutcomeDelta, WriteUnit } from '../store/types.ts'
import type { ResolvedKey } from './keys.ts'

/** Outcome kinds; reasons are free text (see docs/errors.md). */
export type OutcomeKind =
  | 'accepted'
  | 'duplicate'
  | 'rejected'
  | 'over_quota'
  | 'unsupported'
  | 'client_discard'
  | 'filtered'

/**
 * Everything one ingest request accumulates while its items are handled: the write unit for
 * the group commit and the outcome counters. Item handlers only add to it; nothing is written
 * until every item of the envelope has been validated.
 */
export class IngestContext {
  readonly project: ResolvedKey['project']
  readonly key: ResolvedKey['key']
  /** Receive time, ms. */
  readonly received: number
  /** The sender's address (`req.ip`), for `{{auto}}` in events; none for server-made events. */
  readonly clientIp: string | undefined
  /** The project's scrubbing and filter settings; absent: a new project's defaults. */
  readonly privacy: PrivacySettings | undefined
  readonly envelopeHeader: Record<string, unknown>
  /**
   * How far the sender's clock is behind (ms, negative: ahead), from the envelope header's
   * `sent_at`, read once per envelope (event/clock.ts `clockDrift`); 0: no correction, and
   * always for `/store/`, whose request has no envelope header.
   */
  readonly clockDrift: number
  readonly unit: WriteUnit = { events: [], outcomes: [] }
  /** Event items waiting for the digest (digest-pool.ts), in envelope order. */
  readonly digests: { payload: Uint8Array; headerId: string | undefined }[] = []
  /**
   * Set when the digest on the store's write resolves these events' frames against the
   * project's source maps (source-maps/resolver.ts `resolveQueued`; the value is its mark).
   */
  sourceMaps: SourceMapMark | undefined = undefined

  constructor(
    resolved: ResolvedKey,
    received: number,
    envelopeHeader: Record<string, unknown>,
    clientIp?: string,
  ) {
    this.project = resolved.project
    this.key = resolved.key
    this.received = received
    this.envelopeHeader = envelopeHeader
    this.clockDrift = clockDrift(envelopeHeader['sent_at'], received)
    this.clientIp = clientIp
    this.privacy = resolved.privacy
  }

  /** Counts `quantity` items of `category` under an outcome. */
  outcome(outcome: OutcomeKind, reason: string, category: string, quantity = 1): void {
    const delta: OutcomeDelta = {
      projectId: this.project.id,
      keyId: this.key.id,
      at: this.received,
      outcome,
      reason,
      category,
      quantity,
    }
    this.unit.outcomes.push(delta)
  }

  /** Queues an event item's bytes for the digest, which turns it into a row for the commit. */
  queueDigest(payload: Uint8Array, headerId: string | undefined): void {
    this.digests.push({ payload, headerId })
  }

  /** Queues an event for the commit. Its `accepted` outcome is counted after the commit. */
  addEvent(event: EventToWrite): void {
    this.unit.events.push(event)
  }
}
