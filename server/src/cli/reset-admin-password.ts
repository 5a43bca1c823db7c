import { randomBytes } from 'node:crypto'
import { setPassword } from '../accounts/lifecycle.ts'
import { hashPassword, passwordProblem } from '../accounts/passwords.ts'
import { recordAudit, SYSTEM_ACTOR } from '../audit/record.ts'
import { loadConfig } from '../config.ts'
import { openPostgresStore } from '../store/postgres/index.ts'
import { openSqliteStore } from '../store/sqlite/index.ts'
import type { Store, User } from '../store/types.ts'

const USAGE = `usage: npm run reset-admin-password [-- --email <address>] [-- --password-stdin]
  Sets a new password for the first admin (or the user with --email) and ends its sessions.
  Without --password-stdin a random password is generated and printed; with it, the password
  is read from standard input (one line). Uses DATABASE_URL, else the SQLite file of DATA_DIR
  (or DATABASE_PATH), like the server.
`

/** The parsed command line, or a usage error. */
function parseArgs(argv: string[]): { email?: string; stdin: boolean } | string {
  let email: string | undefined
  let stdin = false
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--email') {
      email = argv[++i]
      if (email === undefined || email === '') return '--email needs an address'
    } else if (a === '--password-stdin') stdin = true
    else return `unknown argument: ${a}`
  }
  return email === undefined ? { stdin } : { email, stdin }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  // One line: the trailing newline of `echo` or a here-string is not part of the password.
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '')
}

/** The first admin: the oldest active one, else the oldest one. */
async function targetUser(store: Store, email: string | undefined): Promise<User | undefined> {
  if (email !== undefined) return store.findUserByEmail(email)
  const admins = (await store.listUsers()).filter((u) => u.isAdmin)
  return admins.find((u) => u.deactivatedAt === null) ?? admins[0]
}

/**
 * `npm run reset-admin-password`: the operator's way back in when the admin password is lost
 * and no e-mail is configured. Runs on the server's machine against its database (SQLite or
 * PostgreSQL, chosen as the server does), so having shell access is the authorisation. Ends the
 * user's sessions and leaves a `password.reset` audit row with the actor `system`.
 */
async function main(argv: string[]): Promise<number> {
  const args = parseArgs(argv)
  if (typeof args === 'string') {
    process.stderr.write(`${args}\n${USAGE}`)
    return 2
  }
  // A command line entry point like main.ts: it reads the environment once, into the config.
  const config = loadConfig(process.env)
  let password = randomBytes(18).toString('base64url')
  if (args.stdin) {
    password = await readStdin()
    const problem = passwordProblem(password)
    if (problem !== undefined) {
      process.stderr.write(`${problem}\n`)
      return 2
    }
  }
  const store =
    config.databaseUrl !== undefined
      ? await openPostgresStore(config.databaseUrl, { poolSize: 2 })
      : await openSqliteStore(config.databasePath, { writerThread: false })
  try {
    const user = await targetUser(store, args.email)
    if (user === undefined) {
      process.stderr.write(
        args.email === undefined ? 'there is no admin account\n' : `no user ${args.email}\n`,
      )
      return 1
    }
    await setPassword(store, user.id, await hashPassword(password))
    await recordAudit(store, SYSTEM_ACTOR, 'password.reset', {
      target: `user:${user.id}`,
      details: { via: 'command', email: user.email },
    })
    process.stdout.write(`password of ${user.email} reset; its sessions were ended\n`)
    if (!args.stdin) process.stdout.write(`new password: ${password}\n`)
    if (user.deactivatedAt !== null)
      process.stdout.write('note: this account is deactivated; an admin can reactivate it\n')
    return 0
  } catch (err) {
    process.stderr.write(`reset failed: ${err instanceof Error ? err.message : String(err)}\n`)
    return 1
  } finally {
    await store.close()
  }
}

main(process.argv.slice(2)).then((code) => process.exit(code))
