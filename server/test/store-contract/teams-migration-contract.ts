import { expect } from 'vitest'
import type { Migration } from '../../src/store/migration-plan.ts'
import { accountQueries } from '../../src/store/queries/accounts.ts'
import { projectQueries } from '../../src/store/queries/projects.ts'
import { teamQueries } from '../../src/store/queries/teams.ts'
import type { SqlPort } from '../../src/store/sql/port.ts'

/** A backend's fresh database, with what the teams migration check needs of it. */
export interface MigratingDatabase {
  port: SqlPort
  migrations: Migration[]
  /** Applies the migrations given (the backend's own migrate). */
  migrate(migrations: Migration[]): Promise<void>
  /** Runs a script of plain statements. */
  exec(sql: string): Promise<void>
}

/**
 * The teams migration on a database from before teams, the same check for both backends:
 * projects go to Default, the first admin runs it, tokens keep every scope, and new teams and
 * projects continue after the seeded rows.
 */
export async function checkTeamsMigration(db: MigratingDatabase): Promise<void> {
  const teams = db.migrations.find((m) => m.name.endsWith('teams'))
  expect(teams).toBeDefined()
  await db.migrate(db.migrations.filter((m) => m.version < (teams?.version ?? 0)))
  await db.exec(`INSERT INTO users (email, password_hash, is_admin, created_at) VALUES
    ('plain@example.com', 'x', 0, 1), ('first@example.com', 'x', 1, 2), ('second@example.com', 'x', 1, 3);
    INSERT INTO projects (slug, name, created_at) VALUES ('old', 'Old', 1);
    INSERT INTO api_tokens (user_id, name, token_hash, created_at) VALUES (1, 'ci', 'h', 1);`)
  await db.migrate(db.migrations)

  const projects = projectQueries(db.port)
  const store = teamQueries(db.port)
  expect((await projects.listProjects()).map((p) => [p.slug, p.teamId])).toEqual([['old', 1]])
  expect((await store.listTeams()).map((t) => t.name)).toEqual(['Default'])
  expect((await store.listMembers(1)).map((m) => [m.email, m.role])).toEqual([
    ['first@example.com', 'admin'],
  ])
  expect((await accountQueries(db.port).findToken('h'))?.scopes).toEqual(['read', 'write', 'admin'])
  // New teams continue after the seeded id; new projects default to Default.
  expect((await store.createTeam('Next', 'next')).id).toBe(2)
  const made = await projects.createProject('New', 'new', 'f'.repeat(32))
  expect(made.project.teamId).toBe(1)
}
