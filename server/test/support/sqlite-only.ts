/**
 * HTTP test files the `integration-postgres` project leaves out, each with why: they test
 * SQLite itself, or open a SQLite store directly, so on PostgreSQL they would only repeat the
 * SQLite run. Everything else in `server/test/` runs on both backends.
 */
export const SQLITE_ONLY_TESTS: { file: string; reason: string }[] = [
  {
    file: 'server/test/ingest-file-store.test.ts',
    reason: 'the SQLite file store and its writer thread',
  },
  {
    file: 'server/test/ingest-overload.test.ts',
    reason: 'overload of the SQLite writer thread on a file',
  },
  {
    file: 'server/test/bootstrap.test.ts',
    reason:
      'opens SQLite stores directly; the PostgreSQL first start is in postgres/bootstrap.test.ts',
  },
  {
    file: 'server/test/retention.test.ts',
    reason: 'opens a SQLite store directly; PostgreSQL retention is in the store contract',
  },
  {
    file: 'server/test/storage-guard.test.ts',
    reason: 'the disk guard of the SQLite data directory',
  },
  { file: 'server/test/docs-drift.test.ts', reason: 'reads docs and config only, no database' },
  {
    file: 'server/test/prometheus-rules.test.ts',
    reason: 'runs promtool on the shipped rule files only, no database',
  },
]
