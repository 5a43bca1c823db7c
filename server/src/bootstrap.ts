import { randomBytes } from 'node:crypto'
import { hashPassword } from './accounts/passwords.ts'
import { keyJson } from './api/format.ts'
import { createProject } from './api/projects.ts'
import type { Config } from './config.ts'
import type { Store } from './store/types.ts'

/** What a first start created, for `main.ts` to print once. */
export interface BootstrapReport {
  adminEmail: string
  /** Only when generated now: it is never stored in clear and cannot be shown again. */
  generatedPassword?: string
  defaultDsn: string
}

/**
 * Makes a fresh data directory usable: the first admin account (from `INGEST_ADMIN_EMAIL` /
 * `INGEST_ADMIN_PASSWORD`, else generated) and a default project with its DSN.
 */
export async function bootstrap(
  store: Store,
  config: Config,
  baseUrl: string,
): Promise<BootstrapReport> {
  let adminEmail = config.adminEmail ?? 'admin@localhost'
  let generatedPassword: string | undefined
  if ((await store.countUsers()) === 0) {
    const password = config.adminPassword ?? randomBytes(12).toString('base64url')
    if (config.adminPassword === undefined) generatedPassword = password
    await store.createUser(adminEmail, await hashPassword(password), true)
  } else if (config.adminEmail === undefined) {
    const existing = await store.findUserByEmail(adminEmail)
    if (existing === undefined) adminEmail = '(existing account)'
  }
  let projects = await store.listProjects()
  if (projects.length === 0) {
    await createProject(store, 'Default')
    projects = await store.listProjects()
  }
  const first = projects[0]
  const keys = first === undefined ? [] : await store.listKeys(first.id)
  const key = keys.find((k) => k.revokedAt === null && k.component === null) ?? keys[0]
  return {
    adminEmail,
    ...(generatedPassword !== undefined ? { generatedPassword } : {}),
    defaultDsn: key === undefined ? '' : keyJson(key, baseUrl).dsn,
  }
}
