import Database from 'better-sqlite3'
import { expect, it } from 'vitest'
import { accountQueries } from '../queries/accounts.ts'
import { projectQueries } from '../queries/projects.ts'
import { teamQueries } from '../queries/teams.ts'
import { loadMigrations, migrate } from './migrations.ts'
import { sqlitePort } from './sql-port.ts'

it('a database from before teams: projects go to Default, the first admin runs it, tokens keep every scope', async () => {
  const db = new Database(':memory:')
  db.pragma('foreign_keys = ON')
  const all = await loadMigrations()
  const teams = all.find((m) => m.name.endsWith('teams'))
  expect(teams).toBeDefined()
  migrate(
    db,
    all.filter((m) => m.version < (teams?.version ?? 0)),
  )
  db.exec(`INSERT INTO users (email, password_hash, is_admin, created_at) VALUES
    ('plain@example.com', 'x', 0, 1), ('first@example.com', 'x', 1, 2), ('second@example.com', 'x', 1, 3);
    INSERT INTO projects (slug, name, created_at) VALUES ('old', 'Old', 1);
    INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (1, 'ci', 'h', 1);`)
  migrate(db, all)

  const projects = projectQueries(sqlitePort(db))
  const store = teamQueries(sqlitePort(db))
  expect((await projects.listProjects()).map((p) => [p.slug, p.teamId])).toEqual([['old', 1]])
  expect((await store.listTeams()).map((t) => t.name)).toEqual(['Default'])
  expect((await store.listMembers(1)).map((m) => [m.email, m.role])).toEqual([
    ['first@example.com', 'admin'],
  ])
  expect((await accountQueries(sqlitePort(db)).findToken('h'))?.scopes).toEqual([
    'read',
    'write',
    'admin',
  ])
  // New teams continue after the seeded id; new projects default to Default.
  expect((await store.createTeam('Next', 'next')).id).toBe(2)
  const made = await projects.createProject('New', 'new', 'f'.repeat(32))
  expect(made.project.teamId).toBe(1)
  db.close()
})
