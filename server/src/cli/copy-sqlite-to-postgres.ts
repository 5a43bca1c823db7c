import pg from 'pg'
import { copySqliteToPostgres } from '../store/postgres/copy-from-sqlite.ts'

/**
 * `npm run db:copy -- <sqlite file> <postgres url>`: moves an installation from SQLite to
 * PostgreSQL (docs/postgresql.md). Stop the server first; the target must be empty. Prints
 * the row count of every table on both sides and exits non-zero when anything differs.
 */
async function main(argv: string[]): Promise<number> {
  const [sqlitePath, url] = argv
  if (sqlitePath === undefined || url === undefined) {
    process.stderr.write('usage: npm run db:copy -- <sqlite file> <postgres://…>\n')
    return 2
  }
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  try {
    const report = await copySqliteToPostgres(sqlitePath, pool)
    for (const r of report)
      process.stdout.write(
        `${r.table.padEnd(22)} ${String(r.sqlite).padStart(10)} → ${r.postgres}\n`,
      )
    process.stdout.write('copied; every table has the same number of rows on both sides\n')
    return 0
  } catch (err) {
    process.stderr.write(`copy failed: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  } finally {
    await pool.end()
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code))
