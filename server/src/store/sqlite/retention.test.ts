import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { retentionContract } from '../../../test/store-contract/retention-contract.ts'
import { openSqliteStore } from './index.ts'

retentionContract('sqlite', () => openSqliteStore(':memory:'))
// A file store runs its retention batches on the writer thread (ingest-thread.ts).
retentionContract('sqlite file, batches on the writer thread', () =>
  openSqliteStore(join(mkdtempSync(join(tmpdir(), 'ingest-retention-')), 'ingest.db')),
)
