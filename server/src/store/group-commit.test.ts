import { describe, expect, it, vi } from 'vitest'
import { row } from '../../test/store-contract/contract.ts'
import { GroupCommitter } from './group-commit.ts'
import type { IngestStore, WriteUnit } from './ingest-store.ts'
import { openSqliteStore } from './sqlite/index.ts'

/** A store that records the size of every group it is asked to write, then writes it. */
async function countingStore(apiKey: string) {
  const store = await openSqliteStore(':memory:')
  const { project, key } = await store.createProject('P', 'p', apiKey)
  const groups: number[] = []
  const counting: IngestStore = {
    write: (units: WriteUnit[]) => {
      groups.push(units.length)
      return store.write(units)
    },
  }
  return { store, project, key, groups, counting }
}

/**
 * A committer with `wave` on, and a delay no test waits out (only the wave sends its groups),
 * after four clients came in one after another: each a new most, so each went at once.
 */
async function fourClients(apiKey: string) {
  const c = await countingStore(apiKey)
  const unit = (i: number) => ({ events: [row(c.project.id, c.key.id, `w${i}`)], outcomes: [] })
  const waves = new GroupCommitter(c.counting, { delayMs: 60_000, maxInFlight: 4, wave: true })
  await Promise.all([1, 2, 3, 4].map((i) => waves.write(unit(i))))
  expect(c.groups).toEqual([1, 1, 1, 1])
  return { ...c, unit, waves }
}

describe('GroupCommitter', () => {
  it('writes units queued together in one store transaction and resolves each with its own result', async () => {
    const { store, project, key, groups: calls, counting } = await countingStore('b'.repeat(32))
    const committer = new GroupCommitter(counting, { delayMs: 5 })
    const units = Array.from({ length: 20 }, (_, i) => ({
      events: [row(project.id, key.id, `g${i % 3}`)],
      outcomes: [],
    }))
    const results = await Promise.all(units.map((u) => committer.write(u)))
    expect(calls).toEqual([20])
    expect(results.map((r) => r.events[0]?.eventId)).toEqual(units.map((u) => u.events[0]?.eventId))
    const { issues } = await store.listIssues(project.id, {}, { limit: 10 })
    expect(issues.reduce((n, i) => n + i.timesSeen, 0)).toBe(20)
    await store.close()
  })

  it('sends a group of startAt units to the store at once, without waiting out the delay', async () => {
    const { store, project, key, groups, counting } = await countingStore('e'.repeat(32))
    // A delay no test waits out: only the start threshold can send these groups.
    const committer = new GroupCommitter(counting, { delayMs: 60_000, startAt: 3, maxBatch: 3 })
    const unit = (i: number) => ({ events: [row(project.id, key.id, `s${i}`)], outcomes: [] })
    const first = [committer.write(unit(1)), committer.write(unit(2))]
    expect(groups).toEqual([])
    first.push(committer.write(unit(3)))
    // Sent from inside the write that filled the group, before any timer or loop turn.
    expect(groups).toEqual([3])
    await Promise.all(first)
    const second = [4, 5, 6].map((i) => committer.write(unit(i)))
    await Promise.all(second)
    expect(groups).toEqual([3, 3])
    await store.close()
  })

  it('with wave, sends a group once as many units are in flight as lately at most', async () => {
    const { store, groups, counting, unit, waves } = await fourClients('f'.repeat(32))
    // They come back after their answers: three are not yet all of them…
    const back = [5, 6, 7].map((i) => waves.write(unit(i)))
    expect(groups).toEqual([1, 1, 1, 1])
    // …the fourth is, and the four go together from inside its write.
    back.push(waves.write(unit(8)))
    expect(groups).toEqual([1, 1, 1, 1, 4])
    await Promise.all(back)

    // Without it, the same clients wait for the delay (here: until flushed).
    groups.length = 0
    const plain = new GroupCommitter(counting, { delayMs: 60_000, maxInFlight: 4 })
    const waiting = [9, 10, 11, 12].map((i) => plain.write(unit(i)))
    expect(groups).toEqual([])
    await plain.flush()
    await Promise.all(waiting)
    expect(groups).toEqual([4])
    await store.close()
  })

  it('with wave, forgets the peak of a busy second after a quiet one', async () => {
    const { store, groups, unit, waves } = await fourClients('a1'.repeat(16))
    // Two quiet seconds: one client alone is then all there is, and goes at once.
    await new Promise((resolve) => setTimeout(resolve, 2_100))
    await waves.write(unit(5))
    expect(groups).toEqual([1, 1, 1, 1, 1])
    await store.close()
  })

  it('after a commit, gathers the next group until its oldest unit waited the delay', async () => {
    const store = await openSqliteStore(':memory:')
    const { project, key } = await store.createProject('P', 'p', 'd'.repeat(32))
    const groups: number[] = []
    let committing: (() => void) | undefined
    // A store that commits off the event loop: the commit ends when the test says so.
    const offLoop: IngestStore = {
      write: async (units: WriteUnit[]) => {
        groups.push(units.length)
        await new Promise<void>((resolve) => {
          committing = resolve
        })
        return store.write(units)
      },
    }
    const committer = new GroupCommitter(offLoop, { delayMs: 300 })
    const unit = () => ({ events: [row(project.id, key.id, 'g')], outcomes: [] })
    const first = committer.write(unit())
    await vi.waitFor(() => expect(groups).toEqual([1]), { timeout: 2000 })
    const second = committer.write(unit())
    committing?.()
    await first
    // Written right after the first commit, `second` would be a group of its own.
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(groups).toEqual([1])
    const third = committer.write(unit())
    await vi.waitFor(() => expect(groups).toEqual([1, 2]), { timeout: 2000 })
    committing?.()
    await Promise.all([second, third])
    await store.close()
  })

  it('splits very large queues into batches and rejects a unit that cannot be written', async () => {
    const store = await openSqliteStore(':memory:')
    const { project, key } = await store.createProject('P', 'p', 'c'.repeat(32))
    const committer = new GroupCommitter(store, { delayMs: 1, maxBatch: 4 })
    const ok = await Promise.all(
      Array.from({ length: 10 }, () =>
        committer.write({ events: [row(project.id, key.id, 'x')], outcomes: [] }),
      ),
    )
    expect(ok).toHaveLength(10)
    const bad = committer.write({ events: [row(999_999, key.id, 'x')], outcomes: [] })
    await expect(bad).rejects.toThrow(/FOREIGN KEY/)
    await store.close()
  })

  it('retries the units of a failed group alone: only the failing unit is rejected', async () => {
    const { store, project, key, groups, counting } = await countingStore('e'.repeat(32))
    const committer = new GroupCommitter(counting, { delayMs: 20 })
    const good = Array.from({ length: 3 }, () =>
      committer.write({ events: [row(project.id, key.id, 'x')], outcomes: [] }),
    )
    const bad = committer.write({ events: [row(999_999, key.id, 'x')], outcomes: [] })
    await expect(Promise.all(good)).resolves.toHaveLength(3)
    await expect(bad).rejects.toThrow(/FOREIGN KEY/)
    // One group of four failed, then each unit alone.
    expect(groups).toEqual([4, 1, 1, 1, 1])
    const { issues } = await store.listIssues(project.id, {}, { limit: 10 })
    expect(issues[0]?.timesSeen).toBe(3)
    await store.close()
  })

  it('tells its observer what each committed write added, never what a failed group did', async () => {
    const { store, project, key, counting } = await countingStore('f'.repeat(32))
    const seen: { units: number; outcomes: Record<string, number> }[] = []
    const committer = new GroupCommitter(counting, {
      delayMs: 20,
      observer: {
        committed: (units, seconds, outcomes) => {
          expect(seconds).toBeGreaterThanOrEqual(0)
          const byOutcome: Record<string, number> = {}
          for (const o of outcomes) byOutcome[o.outcome] = (byOutcome[o.outcome] ?? 0) + o.quantity
          seen.push({ units, outcomes: byOutcome })
        },
      },
    })
    const discard = {
      projectId: project.id,
      keyId: key.id,
      at: Date.now(),
      outcome: 'client_discard',
      reason: 'sample_rate',
      category: 'error',
      quantity: 2,
    }
    // A group of four whose last unit cannot be written: it fails as a whole, then each unit
    // is retried alone; the failed group and the failing unit count nothing.
    const good = Array.from({ length: 3 }, (_, i) =>
      committer.write({ events: [row(project.id, key.id, `o${i}`)], outcomes: [discard] }),
    )
    const bad = committer.write({ events: [row(999_999, key.id, 'x')], outcomes: [discard] })
    await Promise.all(good)
    await expect(bad).rejects.toThrow(/FOREIGN KEY/)
    expect(seen).toEqual([
      { units: 1, outcomes: { accepted: 1, client_discard: 2 } },
      { units: 1, outcomes: { accepted: 1, client_discard: 2 } },
      { units: 1, outcomes: { accepted: 1, client_discard: 2 } },
    ])
    // A group that commits is told once, with the sums of all its units.
    await Promise.all(
      [3, 4].map((i) =>
        committer.write({ events: [row(project.id, key.id, `o${i}`)], outcomes: [discard] }),
      ),
    )
    expect(seen.at(-1)).toEqual({ units: 2, outcomes: { accepted: 2, client_discard: 4 } })
    await store.close()
  })

  it('keeps up to maxInFlight groups committing at once', async () => {
    let open = 0
    let peak = 0
    const releases: (() => void)[] = []
    const slow: IngestStore = {
      write: async (units: WriteUnit[]) => {
        open++
        peak = Math.max(peak, open)
        await new Promise<void>((resolve) => releases.push(resolve))
        open--
        return units.map(() => ({ events: [] }))
      },
    }
    const committer = new GroupCommitter(slow, { delayMs: 1, maxBatch: 2, maxInFlight: 3 })
    const writes = Array.from({ length: 10 }, () => committer.write({ events: [], outcomes: [] }))
    await vi.waitFor(() => expect(open).toBe(3), { timeout: 2000 })
    while (releases.length > 0 || open > 0) {
      releases.splice(0).forEach((r) => {
        r()
      })
      await new Promise((r) => setTimeout(r, 5))
    }
    await expect(Promise.all(writes)).resolves.toHaveLength(10)
    expect(peak).toBe(3)
  })
})
