import { performance } from 'node:perf_hooks'
import type { IngestStore, WriteUnit } from '../store/types.ts'
import { digestingStore, writeDigested } from './digest-on-write.ts'

/** How often the share is decided again from the two threads' busy time, ms. */
const PERIOD_MS = 200
/** How far the share moves per decision. */
const STEP = 0.1
/** Most of the events the main thread takes: it also serves HTTP, whose latency matters. */
const MAX_SHARE = 0.7
/** The writer counts as the limit from this busy share on. */
const WRITER_SATURATED = 0.8
/** How much busier one thread must be than the other before work moves. */
const MARGIN = 0.1

/**
 * The next share of event items the main thread digests itself, from the share of the last
 * period each thread was busy. Work moves to the main thread only while the writer thread is
 * nearly saturated and clearly the busier one; it moves back as soon as the main thread is the
 * busier one or the writer has room again. Pure, so the rule is tested without load.
 */
export function nextShare(share: number, main: number, writer: number): number {
  if (writer >= WRITER_SATURATED && writer > main + MARGIN) return Math.min(MAX_SHARE, share + STEP)
  if (main > writer + MARGIN || writer < WRITER_SATURATED - MARGIN)
    return Math.max(0, round(share - STEP))
  return share
}

const round = (n: number) => Math.round(n * 100) / 100

/** The calling thread's clock and busy time, ms (its event loop's `active` time). */
export interface BalanceClock {
  now(): number
  busyMs(): number
}

const THIS_THREAD: BalanceClock = {
  now: () => performance.now(),
  busyMs: () => performance.eventLoopUtilization().active,
}

/**
 * Decides, every {@link PERIOD_MS}, which share of event items the main thread digests before
 * the hand-off instead of the SQLite writer thread, from the main thread's event-loop
 * utilisation and the writer's busy seconds. On two cores the writer (digest, compression,
 * statements, fsync) is the limit under load while the main thread (HTTP, framing) idles about
 * a third of the time; moving part of the digest over evens them out (docs/ingest-hot-path.md).
 */
export class DigestBalance {
  #share = 0
  #at: number
  #mainBusy: number
  #writerBusy: number
  readonly #writerBusySeconds: () => number
  readonly #clock: BalanceClock

  constructor(writerBusySeconds: () => number, clock: BalanceClock = THIS_THREAD) {
    this.#writerBusySeconds = writerBusySeconds
    this.#clock = clock
    this.#at = clock.now()
    this.#mainBusy = clock.busyMs()
    this.#writerBusy = writerBusySeconds()
  }

  /** The share now (0 to {@link MAX_SHARE}), decided again when a period has passed. */
  share(): number {
    const now = this.#clock.now()
    const elapsed = now - this.#at
    if (elapsed < PERIOD_MS) return this.#share
    const mainBusy = this.#clock.busyMs()
    const writerBusy = this.#writerBusySeconds()
    const main = (mainBusy - this.#mainBusy) / elapsed
    const writer = ((writerBusy - this.#writerBusy) * 1000) / elapsed
    this.#share = nextShare(this.#share, main, writer)
    this.#at = now
    this.#mainBusy = mainBusy
    this.#writerBusy = writerBusy
    return this.#share
  }
}

/**
 * The store the group committer writes through. A store that digests on its own writer thread
 * (SQLite) gets a {@link DigestBalance}: each write digests the share of its units' event items
 * the balance gives on this thread (whole units, by credit, so the share holds over many writes)
 * and leaves the rest to the writer. Any other store digests everything here (digestingStore).
 */
export function balancedDigestStore(
  store: IngestStore,
  balance: { share(): number } | undefined,
): IngestStore {
  if (store.digestsOnWriter !== true || balance === undefined) return digestingStore(store)
  let credit = 0
  const write = (units: WriteUnit[]) => store.write(units)
  return {
    digestsOnWriter: true,
    write: (units) => {
      const share = balance.share()
      if (share === 0) return store.write(units)
      const here = new Set<WriteUnit>()
      for (const u of units) {
        const n = u.undigested?.items.length ?? 0
        if (n === 0) continue
        credit += share * n
        if (credit >= n) {
          credit -= n
          here.add(u)
        }
      }
      if (here.size === 0) return store.write(units)
      return writeDigested(units, write, (u) => here.has(u))
    },
  }
}
