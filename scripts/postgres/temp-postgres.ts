/**
 * A throwaway PostgreSQL for the bench and tests: initdb and postgres from Debian's
 * `/usr/lib/postgresql/<version>/bin` in a temporary directory, listening on a free loopback
 * port with trust authentication, removed by `stop()`. PostgreSQL refuses to run as root, so
 * as root both run as the Debian `postgres` user (`runuser -u postgres --`).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The newest installed PostgreSQL's bin directory. */
function binDir(): string {
  const root = '/usr/lib/postgresql'
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : []
  if (versions[0] === undefined) {
    throw new Error(`no PostgreSQL under ${root} (Debian: apt-get install postgresql)`)
  }
  return join(root, versions[0], 'bin')
}

/** A port that was free a moment ago (bind to 0, read, close). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address()
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0
      s.close(() => resolve(port))
    })
  })
}

const asRoot = process.getuid?.() === 0

/** The command, run as `postgres` when we are root. */
function cmd(bin: string, args: string[]): [string, string[]] {
  return asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args]
}

/** Starts a fresh PostgreSQL; `url` connects as the superuser `postgres` to database `postgres`. */
export async function startTempPostgres(): Promise<{ url: string; stop(): Promise<void> }> {
  const bin = binDir()
  const dir = mkdtempSync(join(tmpdir(), 'temp-postgres-'))
  const data = join(dir, 'data')
  if (asRoot) {
    const id = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' })
    const gid = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' })
    if (id.status !== 0) throw new Error('running as root needs the Debian postgres user')
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()))
    chmodSync(dir, 0o700)
  }
  const [initBin, initArgs] = cmd(join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'postgres',
    '-A',
    'trust',
    '-E',
    'UTF8',
    '--no-locale',
  ])
  const init = spawnSync(initBin, initArgs, { encoding: 'utf8' })
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true })
    throw new Error(`initdb failed: ${init.stderr}`)
  }
  const port = await freePort()
  const [pgBin, pgArgs] = cmd(join(bin, 'postgres'), [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
  ])
  const server: ChildProcess = spawn(pgBin, pgArgs, { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  server.stderr?.on('data', (d: Buffer) => {
    log += d.toString()
  })
  const exited = new Promise<void>((r) => server.once('exit', () => r()))
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) {
      // runuser does not pass signals on to its child: signal the postmaster itself (its pid is
      // the first line of postmaster.pid). SIGINT is PostgreSQL's fast shutdown.
      const pidFile = join(data, 'postmaster.pid')
      const pid = existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : 0
      if (pid > 0) process.kill(pid, 'SIGINT')
      else server.kill('SIGINT')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  // Ready when it accepts connections (pg_isready), within a generous budget on a busy machine.
  const deadline = Date.now() + 60_000
  for (;;) {
    const ready = spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)])
    if (ready.status === 0) break
    if (server.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`postgres did not start: ${log}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, stop }
}
