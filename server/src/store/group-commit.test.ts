import { describe, expect, it, vi } from 'vitest'
import { row } from '../../test/store-contract/contract.ts'
import { GroupCommitter } from './group-commit.ts'
import { openSqliteStore } from './sqlite/index.ts'
import type { IngestStore, WriteUnit } from './types.ts'

describe('GroupCommitter', () => {
  it('writes units queued together in one store transaction and resolves each with its own result', async () => {
    const store = await openSqliteStore(':memory:')
    const { project, key } = await store.createProject('P', 'p', 'b'.repeat(32))
    const calls: number[] = []
    const counting: IngestStore = {
      write: (units: WriteUnit[]) => {
        calls.push(units.length)
        return store.write(units)
      },
    }
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

  it('splits very large queues into batches and rejects every unit of a failed batch', async () => {
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
})
