import { randomBytes } from 'node:crypto'
import { hashPassword } from './accounts/passwords.ts'
import type { Config } from './config.ts'
import { newPublicKey } from './http-kit/tokens.ts'
import { DEFAULT_TEAM_ID } from './store/team-types.ts'
import type { ProjectKey, Store } from './store/types.ts'

/** What a first start created, for `main.ts` to print once. */
export interface BootstrapReport {
  adminEmail: string
  /** Only when generated now: it is never stored in clear and cannot be shown again. */
  generatedPassword?: string
  /** The default project's DSN key; `main.ts` turns it into a DSN once the port is known. */
  defaultKey?: ProjectKey
}

/** The default project's fixed slug: its uniqueness is what makes a concurrent first start safe. */
const DEFAULT_SLUG = 'default'

/** Both backends report a unique-constraint violation with "unique" in the message. */
const isUniqueViolation = (err: unknown): boolean => /unique/i.test(String(err))

/**
 * Makes a fresh database usable: the first admin account (from `INGEST_ADMIN_EMAIL` /
 * `INGEST_ADMIN_PASSWORD`, else generated) and a default project with its DSN. Safe when
 * several processes start on one empty database at once: the account's e-mail and the default
 * project's slug are unique, so a loser of the race gets a constraint violation, reads what
 * the winner created, and never prints a password that was not stored. `main.ts` runs it
 * before listening, so no API client can create project 1 first.
 */
export async function bootstrap(store: Store, config: Config): Promise<BootstrapReport> {
  let adminEmail = config.adminEmail ?? 'admin@localhost'
  let generatedPassword: string | undefined
  if ((await store.countUsers()) === 0) {
    const password = config.adminPassword ?? randomBytes(12).toString('base64url')
    try {
      const admin = await store.createUser(adminEmail, await hashPassword(password), true)
      // The first admin administers the default team, as the teams migration does for an
      // existing database.
      await store.setMember(DEFAULT_TEAM_ID, admin.id, 'admin')
      if (config.adminPassword === undefined) generatedPassword = password
    } catch (err) {
      if (!isUniqueViolation(err)) throw err
    }
  } else if (config.adminEmail === undefined) {
    const existing = await store.findUserByEmail(adminEmail)
    if (existing === undefined) adminEmail = '(existing account)'
  }
  let projects = await store.listProjects()
  if (projects.length === 0) {
    try {
      await store.createProject('Default', DEFAULT_SLUG, newPublicKey())
    } catch (err) {
      if (!isUniqueViolation(err)) throw err
    }
    projects = await store.listProjects()
  }
  const first = projects[0]
  const keys = first === undefined ? [] : await store.listKeys(first.id)
  const key = keys.find((k) => k.revokedAt === null && k.component === null) ?? keys[0]
  return {
    adminEmail,
    ...(generatedPassword !== undefined ? { generatedPassword } : {}),
    ...(key !== undefined ? { defaultKey: key } : {}),
  }
}
