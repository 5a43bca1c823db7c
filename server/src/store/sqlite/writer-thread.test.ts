import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { alertContract } from '../../../test/store-contract/alerts-contract.ts'
import { row, storeContract } from '../../../test/store-contract/contract.ts'
import { monitorContract } from '../../../test/store-contract/monitors-contract.ts'
import { quotaContract } from '../../../test/store-contract/quotas-contract.ts'
import { releaseHealthContract } from '../../../test/store-contract/release-health-contract.ts'
import { uiStoreContract } from '../../../test/store-contract/ui-contract.ts'
import { openConnection } from './connection.ts'
import { openSqliteStore } from './index.ts'

// A database file gets its group commits written by the writer thread: the same contracts as
// the in-memory store must hold through it.
const dir = mkdtempSync(join(tmpdir(), 'ingest-writer-thread-'))
let n = 0
const openFile = () => openSqliteStore(join(dir, `db-${++n}.sqlite`))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

storeContract('sqlite file, writer thread', openFile)
quotaContract('sqlite file, writer thread', openFile)
releaseHealthContract('sqlite file, writer thread', openFile)
monitorContract('sqlite file, writer thread', openFile)
alertContract('sqlite file, writer thread', openFile)
uiStoreContract('sqlite file, writer thread', openFile)

describe('sqlite writer thread', () => {
  it('opens every connection durable: WAL and synchronous=FULL', () => {
    const db = openConnection(join(dir, 'pragmas.sqlite'))
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    expect(db.pragma('synchronous', { simple: true })).toBe(2)
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1)
    db.close()
  })

  it('answers a write only once its commit is readable from the main connection', async () => {
    const store = await openFile()
    const { project, key } = await store.createProject('P', 'p', 'd'.repeat(32))
    const units = Array.from({ length: 40 }, (_, i) => ({
      events: [row(project.id, key.id, `h${i % 4}`)],
      outcomes: [],
    }))
    const results = await Promise.all(units.map((u) => store.write([u])))
    for (const [i, [r]] of results.entries()) {
      expect(r?.events[0]?.eventId).toBe(units[i]?.events[0]?.eventId)
      const stored = await store.getEvent(project.id, units[i]?.events[0]?.eventId ?? '')
      expect(stored?.issueId).toBe(r?.events[0]?.issueId)
    }
    const { issues } = await store.listIssues(project.id, {}, { limit: 10 })
    expect(issues.map((i) => i.timesSeen).sort()).toEqual([10, 10, 10, 10])
    await store.close()
  })

  it('rejects a failed transaction with its SQLite error, stores none of it, and keeps writing', async () => {
    const store = await openFile()
    const { project, key } = await store.createProject('P', 'p', 'e'.repeat(32))
    const good = row(project.id, key.id, 'x')
    const bad = store.write([{ events: [good, row(999_999, key.id, 'x')], outcomes: [] }])
    await expect(bad).rejects.toThrow(/FOREIGN KEY/)
    expect(await store.getEvent(project.id, good.eventId)).toBeUndefined()
    const [after] = await store.write([{ events: [good], outcomes: [] }])
    expect(after?.events[0]).toMatchObject({ eventId: good.eventId, duplicate: false })
    await store.close()
  })

  it('keeps what it committed across a reopen of the file', async () => {
    const path = join(dir, 'reopen.sqlite')
    const first = await openSqliteStore(path)
    const { project, key } = await first.createProject('P', 'p', 'f'.repeat(32))
    const e = row(project.id, key.id, 'kept')
    await first.write([{ events: [e], outcomes: [] }])
    await first.close()
    const second = await openSqliteStore(path)
    expect(await second.getEvent(project.id, e.eventId)).toMatchObject({ eventId: e.eventId })
    const [again] = await second.write([{ events: [e], outcomes: [] }])
    expect(again?.events[0]?.duplicate).toBe(true)
    await second.close()
  })
})
