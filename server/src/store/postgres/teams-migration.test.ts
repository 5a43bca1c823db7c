import { afterEach, expect, it } from 'vitest'
import { createTestDatabase, type TestDatabase } from '../../../test/support/postgres-database.ts'
import { accountQueries } from '../queries/accounts.ts'
import { projectQueries } from '../queries/projects.ts'
import { teamQueries } from '../queries/teams.ts'
import { openPool } from './db.ts'
import { loadPgMigrations, migratePg } from './migrations.ts'
import { postgresPort } from './sql-port.ts'

let db: TestDatabase | undefined
afterEach(async () => {
  await db?.drop()
  db = undefined
})

it('a database from before teams: projects go to Default, the first admin runs it, tokens keep every scope', async () => {
  db = await createTestDatabase()
  const pool = openPool(db.url, 2)
  try {
    const all = await loadPgMigrations()
    const teams = all.find((m) => m.name.endsWith('teams'))
    expect(teams).toBeDefined()
    await migratePg(
      pool,
      all.filter((m) => m.version < (teams?.version ?? 0)),
    )
    await pool.query(`INSERT INTO users (email, password_hash, is_admin, created_at) VALUES
      ('plain@example.com', 'x', 0, 1), ('first@example.com', 'x', 1, 2), ('second@example.com', 'x', 1, 3);
      INSERT INTO projects (slug, name, created_at) VALUES ('old', 'Old', 1);
      INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (1, 'ci', 'h', 1);`)
    await migratePg(pool, all)

    const projects = projectQueries(postgresPort(pool))
    const store = teamQueries(postgresPort(pool))
    expect((await projects.listProjects()).map((p) => [p.slug, p.teamId])).toEqual([['old', 1]])
    expect((await store.listTeams()).map((t) => t.name)).toEqual(['Default'])
    expect((await store.listMembers(1)).map((m) => [m.email, m.role])).toEqual([
      ['first@example.com', 'admin'],
    ])
    expect((await accountQueries(postgresPort(pool)).findToken('h'))?.scopes).toEqual([
      'read',
      'write',
      'admin',
    ])
    expect((await store.createTeam('Next', 'next')).id).toBe(2)
    const made = await projects.createProject('New', 'new', 'f'.repeat(32))
    expect(made.project.teamId).toBe(1)
  } finally {
    await pool.end()
  }
})
