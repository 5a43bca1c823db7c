/**
 * Capture server: records what a stock SDK puts on the wire, to turn into fixture cases.
 *
 *   npx tsx scripts/capture.ts --out <dir> [--port 0] [--project 42] [-- <command> [args...]]
 *
 * Accepts `POST /api/<project>/envelope/` (and `/store/`), undoes Content-Encoding
 * (gzip, deflate, br), writes each decoded body to `<dir>/<n>.envelope` and the request line
 * and headers to `<dir>/<n>.request.json`, and answers 200 `{}` like the real server would.
 * It prints `{"msg":"listening","url":...,"dsn":...}` on stdout. With a command after `--`,
 * the command runs with `SENTRY_TEST_DSN` set (in a clean environment), and the server stops
 * once the command exited and its requests were written. See fixtures/README.md.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { brotliDecompress, gunzip, inflate } from 'node:zlib'
import { execa } from 'execa'
import { cleanEnv } from '../conformance/src/harness/env.ts'
import { FIXTURE_PUBLIC_KEY } from '../conformance/src/harness/fixtures.ts'

const decoders: Record<string, (body: Buffer) => Promise<Buffer>> = {
  gzip: promisify(gunzip),
  'x-gzip': promisify(gunzip),
  deflate: promisify(inflate),
  br: promisify(brotliDecompress),
}

/** Undoes the request's Content-Encoding; identity and empty values pass through. */
async function decodeBody(body: Buffer, encoding: string | undefined): Promise<Buffer> {
  const name = (encoding ?? '').trim().toLowerCase()
  if (name === '' || name === 'identity') return body
  const decode = decoders[name]
  if (decode === undefined) throw new Error(`unsupported content-encoding ${name}`)
  return decode(body)
}

/** Item types of an envelope, for the one-line log (best effort, never throws). */
function itemTypes(envelope: Buffer): string[] {
  const types: string[] = []
  for (const line of envelope.toString('utf8').split('\n')) {
    const match = /^\{"type":"([a-z_]+)"/.exec(line) ?? /^\{.*"type":"([a-z_]+)".*\}$/.exec(line)
    if (match?.[1] !== undefined && line.length < 300) types.push(match[1])
  }
  return types
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

interface CaptureOptions {
  out: string
  port: number
  project: string
  command: string[]
}

function parseArgs(argv: string[]): CaptureOptions {
  const options: CaptureOptions = { out: '', port: 0, project: '42', command: [] }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]
    const value = (): string => {
      const next = argv[++i]
      if (next === undefined) throw new Error(`${arg} needs a value`)
      return next
    }
    if (arg === '--') {
      options.command = argv.slice(i + 1)
      break
    }
    if (arg === '--out') options.out = resolve(value())
    else if (arg === '--port') options.port = Number(value())
    else if (arg === '--project') options.project = value()
    else throw new Error(`unknown argument ${arg}`)
  }
  if (options.out === '') {
    throw new Error('usage: capture.ts --out <dir> [--port 0] [--project 42] [-- <command>...]')
  }
  return options
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  await mkdir(options.out, { recursive: true })
  let count = 0
  let pending = Promise.resolve()

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://capture')
    const reply = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body))
    }
    if (req.method !== 'POST' || !/^\/api\/\d+\/(envelope|store)\/?$/.test(url.pathname)) {
      reply(404, { detail: 'capture server: only POST /api/<pid>/envelope/' })
      return
    }
    const raw = await readBody(req)
    const body = await decodeBody(raw, req.headers['content-encoding'])
    const n = ++count
    await writeFile(join(options.out, `${n}.envelope`), body)
    const request = {
      method: req.method,
      url: req.url,
      headers: req.headers,
      encodedLength: raw.length,
    }
    await writeFile(join(options.out, `${n}.request.json`), `${JSON.stringify(request, null, 2)}\n`)
    const encoding = req.headers['content-encoding'] ?? 'identity'
    process.stderr.write(
      `#${n} ${url.pathname} ${encoding} ${raw.length}->${body.length} B [${itemTypes(body).join(', ')}]\n`,
    )
    reply(200, {})
  }

  const server = createServer((req, res) => {
    const done = handle(req, res).catch((error: unknown) => {
      process.stderr.write(`capture error: ${String(error)}\n`)
      if (!res.headersSent) res.writeHead(400).end(JSON.stringify({ detail: String(error) }))
    })
    pending = pending.then(() => done)
  })
  await new Promise<void>((ready) => server.listen(options.port, '127.0.0.1', ready))
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('no TCP address')
  const url = `http://127.0.0.1:${address.port}`
  const dsn = `http://${FIXTURE_PUBLIC_KEY}@127.0.0.1:${address.port}/${options.project}`
  process.stdout.write(`${JSON.stringify({ msg: 'listening', url, dsn, out: options.out })}\n`)
  if (options.command.length === 0) return

  const [file, ...args] = options.command
  if (file === undefined) return
  const result = await execa(file, args, {
    env: cleanEnv({ SENTRY_TEST_DSN: dsn }),
    extendEnv: false,
    stdio: 'inherit',
    reject: false,
    timeout: 60_000,
  })
  await pending
  server.close()
  server.closeAllConnections()
  process.stderr.write(`captured ${count} request(s) into ${options.out}\n`)
  process.exitCode = result.exitCode ?? 1
}

await main()
