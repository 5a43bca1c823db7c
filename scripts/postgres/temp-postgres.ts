import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A running throw-away PostgreSQL server: a superuser connection URL and the way to stop it. */
export interface TempPostgres {
  url: string
  stop(): Promise<void>
}

/**
 * Finds Debian's server binaries (`postgresql-NN` installs them under
 * `/usr/lib/postgresql/NN/bin`, not on PATH); the newest version wins. `PG_BIN` overrides.
 */
function findBinDir(): string {
  const override = process.env['PG_BIN']
  if (override !== undefined && override !== '') return override
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  const newest = versions[0]
  if (newest === undefined)
    throw new Error('PostgreSQL not found under /usr/lib/postgresql (apt-get install postgresql)')
  return join(root, newest, 'bin')
}

/** Asks the kernel for a free loopback port (port 0), then releases it for postgres to bind. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

/**
 * `postgres` refuses to run as root (CI runs as root): then the binaries run as Debian's
 * `postgres` system user through `runuser`, and the data directory is handed to that user.
 */
function asUser(): {
  wrap: (cmd: string, args: string[]) => [string, string[]]
  uid?: number
  gid?: number
} {
  if (process.getuid?.() !== 0) return { wrap: (cmd, args) => [cmd, args] }
  const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' })
  const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' })
  if (id.status !== 0) throw new Error('running as root needs the Debian "postgres" user')
  return {
    wrap: (cmd, args) => ['runuser', ['-u', 'postgres', '--', cmd, ...args]],
    uid: Number(id.stdout.trim()),
    gid: Number(gid.stdout.trim()),
  }
}

/** Polls until the server accepts connections (pg_isready), within a generous budget. */
async function waitReady(bin: string, port: number, child: ChildProcess, log: () => string) {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`postgres exited early:\n${log()}`)
    const r = spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-q'])
    if (r.status === 0) return
    await new Promise((r2) => setTimeout(r2, 100))
  }
  throw new Error(`postgres did not become ready within 60 s:\n${log()}`)
}

/**
 * Starts a private PostgreSQL for tests and benchmarks: `initdb` into a fresh temp directory
 * (trust auth on loopback only, fsync off because the data is thrown away), `postgres` on a free
 * port with its socket in that directory. `stop()` shuts it down (fast mode) and removes the
 * directory. Used by the vitest global setup and by `npm run bench -- --db postgres`. `settings`
 * adds server settings (`--pg-stats` preloads pg_stat_statements).
 */
export async function startTempPostgres(
  settings: Readonly<Record<string, string>> = {},
): Promise<TempPostgres> {
  const bin = findBinDir()
  const user = asUser()
  const dir = mkdtempSync(join(tmpdir(), 'ingest-pg-'))
  const data = join(dir, 'data')
  if (user.uid !== undefined && user.gid !== undefined) {
    chownSync(dir, user.uid, user.gid)
    chmodSync(dir, 0o700)
  }
  const [initCmd, initArgs] = user.wrap(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '--encoding=UTF8',
    '--locale=C',
    '--no-sync',
  ])
  const init = spawnSync(initCmd, initArgs, { encoding: 'utf8' })
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`initdb failed: ${init.stderr || init.stdout}`)
  }
  const port = await freePort()
  const [cmd, args] = user.wrap(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
    ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ])
  let output = ''
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  child.stdout?.on('data', (b: Buffer) => {
    output += b.toString()
  })
  child.stderr?.on('data', (b: Buffer) => {
    output += b.toString()
  })
  try {
    await waitReady(bin, port, child, () => output)
  } catch (err) {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
    throw err
  }
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()))
      // pg_ctl as the server's own user: signalling `runuser` would reach our process group.
      const [stopCmd, stopArgs] = user.wrap(join(bin, 'pg_ctl'), [
        '-D',
        data,
        '-m',
        'fast',
        '-w',
        'stop',
      ])
      spawnSync(stopCmd, stopArgs, { stdio: 'ignore' })
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop }
}
