import type { FastifyInstance } from 'fastify'
import { PUBLIC } from '../http/route-access.ts'

/** Where the human-readable API reference is served (outside `/api/0`: no token needed). */
export const REFERENCE_PATH = '/api/reference/'

/**
 * The page allows nothing to load or run: it is plain HTML without scripts or styles, so it
 * works offline and under a CSP stricter than the UI's (`script-src 'self'`).
 */
const CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  )

/** The parts of an OpenAPI 3.1 document the page shows. */
interface Doc {
  info: { title: string; description?: string }
  paths?: Record<string, Record<string, Operation>>
  components?: { schemas?: Record<string, unknown> }
}
interface Operation {
  summary?: string
  parameters?: { name: string; in: string; required?: boolean; schema?: unknown }[]
  requestBody?: { content?: Record<string, { schema?: unknown }> }
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema?: unknown }> }
  >
}

const json = (v: unknown): string => `<pre>${escapeHtml(JSON.stringify(v, null, 2))}</pre>`

function operationHtml(method: string, path: string, op: Operation): string {
  const params = (op.parameters ?? [])
    .map(
      (p) =>
        `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}${p.required === true ? ', required' : ''}): <code>${escapeHtml(JSON.stringify(p.schema ?? {}))}</code></li>`,
    )
    .join('')
  const body = op.requestBody?.content?.['application/json']?.schema
  const responses = Object.entries(op.responses ?? {})
    .map(([status, r]) => {
      const schema = r.content?.['application/json']?.schema
      return `<li><b>${escapeHtml(status)}</b> ${escapeHtml(r.description ?? '')}${schema === undefined ? '' : ` <code>${escapeHtml(JSON.stringify(schema))}</code>`}</li>`
    })
    .join('')
  return [
    `<h3 id="${escapeHtml(`${method}-${path}`)}"><code>${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}</code></h3>`,
    `<p>${escapeHtml(op.summary ?? '')}</p>`,
    params === '' ? '' : `<p>Parameters:</p><ul>${params}</ul>`,
    body === undefined ? '' : `<p>Body (JSON):</p>${json(body)}`,
    `<p>Responses:</p><ul>${responses}</ul>`,
  ].join('\n')
}

/** Renders the generated OpenAPI document as one static page: operations, then schemas. */
export function referenceHtml(doc: Doc): string {
  const ops = Object.entries(doc.paths ?? {}).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => operationHtml(method, path, op)),
  )
  const schemas = Object.entries(doc.components?.schemas ?? {}).map(
    ([name, schema]) =>
      `<h3 id="schema-${escapeHtml(name)}">${escapeHtml(name)}</h3>${json(schema)}`,
  )
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(doc.info.title)}</title></head>
<body>
<h1>${escapeHtml(doc.info.title)}</h1>
<p>${escapeHtml(doc.info.description ?? '')}</p>
<p>Machine-readable: <a href="/api/0/openapi.json">/api/0/openapi.json</a> (OpenAPI 3.1).</p>
<h2>Operations</h2>
${ops.join('\n')}
<h2>Schemas</h2>
${schemas.join('\n')}
</body></html>`
}

/** Serves {@link referenceHtml} of `document()` at {@link REFERENCE_PATH}. */
export function referenceRoute(app: FastifyInstance, document: () => unknown): void {
  app.get(
    REFERENCE_PATH,
    { config: { access: PUBLIC }, schema: { hide: true } },
    async (_req, reply) =>
      reply
        .header('content-security-policy', CSP)
        .header('x-content-type-options', 'nosniff')
        .type('text/html; charset=utf-8')
        .send(referenceHtml(document() as Doc)),
  )
}
