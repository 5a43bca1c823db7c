/**
 * A reverse proxy in front of a server that takes envelope items and event fields out of what
 * SDKs send: it stands for a server that silently drops them, so a conformance cell that checks
 * them can be seen to fail (conformance/README.md, "Seeing a row fail"). Not part of the
 * server: it only runs beside one, for this check.
 *
 *   node conformance/bin/strip-proxy.mjs --upstream http://127.0.0.1:8001 --port 8002 \
 *     --drop-items session,sessions --drop-event-fields request
 */
import { createServer, type IncomingMessage } from 'node:http'
import { parseArgs } from 'node:util'
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { type StripRules, stripEnvelope, stripStoreEvent } from './strip-envelope.ts'

const HOP_BY_HOP = new Set([
  'connection',
  'content-encoding',
  'content-length',
  'host',
  'keep-alive',
  'transfer-encoding',
])

function list(value: string | undefined): Set<string> {
  return new Set((value ?? '').split(',').filter((s) => s !== ''))
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** The body as sent, decoded; `undefined` for an encoding this proxy does not know. */
function decode(body: Buffer, encoding: string | undefined): Buffer | undefined {
  switch ((encoding ?? '').trim().toLowerCase()) {
    case '':
    case 'identity':
      return body
    case 'gzip':
      return gunzipSync(body)
    case 'deflate':
      return inflateSync(body)
    case 'br':
      return brotliDecompressSync(body)
    default:
      return undefined
  }
}

/** Rewrites SDK ingest requests; every other request (the API) passes unchanged. */
function rewrite(path: string, body: Buffer, encoding: string | undefined, rules: StripRules) {
  const envelope = /^\/api\/[^/]+\/envelope\/?(\?|$)/.test(path)
  const store = /^\/api\/[^/]+\/store\/?(\?|$)/.test(path)
  if (!envelope && !store) return undefined
  const decoded = decode(body, encoding)
  if (decoded === undefined) return undefined
  return envelope ? stripEnvelope(decoded, rules) : stripStoreEvent(decoded, rules)
}

function main(): void {
  const { values } = parseArgs({
    options: {
      upstream: { type: 'string' },
      port: { type: 'string', default: '0' },
      'drop-items': { type: 'string' },
      'drop-event-fields': { type: 'string' },
    },
  })
  if (values.upstream === undefined) {
    process.stderr.write(
      'usage: strip-proxy --upstream URL [--port N] [--drop-items a,b] [--drop-event-fields f,g]\n',
    )
    process.exit(2)
  }
  const upstream = values.upstream.replace(/\/+$/, '')
  const rules: StripRules = {
    items: list(values['drop-items']),
    eventFields: list(values['drop-event-fields']),
  }
  const server = createServer((req, res) => {
    void (async () => {
      const path = req.url ?? '/'
      const raw = await readBody(req)
      const encoding = req.headers['content-encoding']
      const stripped = rewrite(path, raw, encoding, rules)
      const headers = new Headers()
      for (const [name, value] of Object.entries(req.headers)) {
        if (value === undefined || HOP_BY_HOP.has(name)) continue
        headers.set(name, Array.isArray(value) ? value.join(', ') : value)
      }
      if (stripped === undefined && encoding !== undefined)
        headers.set('content-encoding', encoding)
      if (stripped !== undefined && stripped.dropped.length > 0) {
        process.stdout.write(`${JSON.stringify({ path, dropped: stripped.dropped })}\n`)
      }
      const method = req.method ?? 'GET'
      const hasBody = method !== 'GET' && method !== 'HEAD'
      const answer = await fetch(`${upstream}${path}`, {
        method,
        headers,
        ...(hasBody ? { body: stripped?.body ?? raw } : {}),
        redirect: 'manual',
      })
      const out: Record<string, string> = {}
      answer.headers.forEach((value, name) => {
        if (!HOP_BY_HOP.has(name)) out[name] = value
      })
      res.writeHead(answer.status, out)
      res.end(Buffer.from(await answer.arrayBuffer()))
    })().catch((error: unknown) => {
      res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ detail: `strip-proxy: ${String(error)}` }))
    })
  })
  server.listen(Number(values.port), '127.0.0.1', () => {
    const address = server.address()
    const port = typeof address === 'object' && address !== null ? address.port : values.port
    process.stdout.write(
      `${JSON.stringify({ listening: `http://127.0.0.1:${port}`, rules: { items: [...rules.items], eventFields: [...rules.eventFields] } })}\n`,
    )
  })
}

main()
