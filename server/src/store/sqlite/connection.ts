import Database from 'better-sqlite3'

/**
 * Opens one connection with the settings every connection to the store needs: WAL journal and
 * `synchronous=FULL` (a commit is on disk before it returns), foreign keys, and a busy timeout
 * for the moments another connection (the ingest writer thread, another node) holds the lock.
 */
export function openConnection(path: string): Database.Database {
  const db = new Database(path)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = FULL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  return db
}
