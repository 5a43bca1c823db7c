import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { build } from 'esbuild'
import type { FastifyInstance } from 'fastify'
import { makeToken, makeUser } from '../access/world.ts'
import { ADMIN } from '../support/helpers.ts'

const run = promisify(execFile)
const ROOT = join(import.meta.dirname, '../../..')

/** The stock CLIs installed from npm (conformance/package.json), by major version. */
export const SENTRY_CLI = {
  2: join(ROOT, 'node_modules/sentry-cli-2/bin/sentry-cli'),
  3: join(ROOT, 'node_modules/sentry-cli-3/bin/sentry-cli'),
} as const

/** A team with a project and an uploader: a team admin with an admin-scope token. */
export interface UploadTeam {
  teamId: number
  org: string
  projectId: number
  projectSlug: string
  dsnKey: string
  token: string
}

async function ok<T>(res: { statusCode: number; body: string; json<U>(): U }, what: string) {
  if (res.statusCode >= 300) throw new Error(`${what}: ${res.statusCode} ${res.body}`)
  return res.json<T>()
}

/** Makes a team, its project and a team admin's token through the API and the store. */
export async function uploadTeam(app: FastifyInstance, name: string): Promise<UploadTeam> {
  const team = await ok<{ id: number; slug: string }>(
    await app.inject({ method: 'POST', url: '/api/0/teams/', headers: ADMIN, payload: { name } }),
    'team',
  )
  const p = await ok<{ id: number; slug: string; dsn: string }>(
    await app.inject({
      method: 'POST',
      url: '/api/0/projects/',
      headers: ADMIN,
      payload: { name: `${name} web`, team_id: team.id },
    }),
    'project',
  )
  const email = `${team.slug}-uploader@example.com`
  const userId = await makeUser(app, email)
  await ok(
    await app.inject({
      method: 'PUT',
      url: `/api/0/teams/${team.id}/members/`,
      headers: ADMIN,
      payload: { email, role: 'admin' },
    }),
    'member',
  )
  const { secret } = await makeToken(app, userId, ['read', 'write', 'admin'])
  return {
    teamId: team.id,
    org: team.slug,
    projectId: p.id,
    projectSlug: p.slug,
    dsnKey: new URL(p.dsn).username,
    token: secret,
  }
}

/**
 * The app's source: `run` calls `middle`, which calls `explode`, which throws. The names are
 * long and unexported, so the minifier renames all three; `salt` changes the minified output
 * (other names) without changing the functions.
 */
export function appSource(salt: string): string {
  // Helpers whose number depends on the salt: the minifier hands out its short names by use,
  // so another count gives the three functions other minified names and positions.
  const n = 2 + (salt.length % 5)
  const helpers = Array.from({ length: n }, (_, i) => `function helper${i}(v) { return v + ${i} }`)
  const calls = `${Array.from({ length: n }, (_, i) => `helper${i}(`).join('')}0${')'.repeat(n)}`
  return `
export const build = ${JSON.stringify(salt)}
let counter = 0

function explodeWithOriginalName(reason) {
  counter += 1
  throw new Error('checkout failed: ' + reason)
}

function middleLayer(reason) {
  const padded = reason.padEnd(4, '.')
  explodeWithOriginalName(padded)
}

export function run(reason) {
  counter += ${calls}
  middleLayer(reason)
  return counter
}
${helpers.join('\n')}
`
}

/**
 * Bundles an entry with esbuild (minified, external source maps with `sourcesContent`) into a
 * fresh directory; returns it and the output file names.
 */
export async function bundleApp(
  entry: string,
  opts: {
    format: 'iife' | 'cjs' | 'esm'
    globalName?: string
    salt: string
    /** `inline`: the map embedded as a base64 `data:` URL (`esbuild --sourcemap=inline`). */
    sourcemap?: 'external' | 'inline'
  },
): Promise<{ dir: string; out: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'sourcemaps-'))
  await writeFile(join(dir, 'app-source.js'), appSource(opts.salt))
  const entryPath = join(dir, 'entry.js')
  await writeFile(entryPath, entry)
  const outdir = join(dir, 'dist')
  await build({
    entryPoints: [entryPath],
    bundle: true,
    minify: true,
    sourcemap: opts.sourcemap ?? 'external',
    sourcesContent: true,
    format: opts.format,
    ...(opts.globalName === undefined ? {} : { globalName: opts.globalName }),
    outdir,
    entryNames: 'app.min',
    logLevel: 'silent',
    nodePaths: [join(ROOT, 'node_modules')],
  })
  return { dir, out: outdir }
}

/**
 * Runs a stock sentry-cli against the server (in `cwd`, for the commands that read a git
 * checkout); returns its output (throws on a non-zero exit).
 */
export async function sentryCli(
  major: 2 | 3,
  args: string[],
  env: { url: string; token: string },
  cwd?: string,
): Promise<string> {
  try {
    const r = await run(SENTRY_CLI[major], args, {
      ...(cwd === undefined ? {} : { cwd }),
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: tmpdir(),
        SENTRY_URL: env.url,
        SENTRY_AUTH_TOKEN: env.token,
        SENTRY_LOG_LEVEL: 'info',
        SENTRY_DISABLE_UPDATE_CHECK: '1',
        SENTRYCLI_SKIP_DOWNLOAD: '1',
      },
      timeout: 120_000,
    })
    return `${r.stdout}\n${r.stderr}`
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string }
    throw new Error(`sentry-cli ${args.join(' ')} failed: ${e.message}\n${e.stdout}\n${e.stderr}`)
  }
}

/** The debug ID sentry-cli injected into a built file (its `//# debugId=` comment). */
export async function injectedDebugId(file: string): Promise<string> {
  const text = await readFile(file, 'utf8')
  const m = /\/\/# debugId=([0-9a-fA-F-]{36})/.exec(text)
  if (m?.[1] === undefined) throw new Error(`no debugId comment in ${file}`)
  return m[1].toLowerCase()
}

/** The files of a directory (for messages). */
export const listDir = (dir: string) => readdir(dir)
