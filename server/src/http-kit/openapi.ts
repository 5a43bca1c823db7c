import swagger from '@fastify/swagger'
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifySchemaCompiler,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify'
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  type ZodTypeProvider,
} from 'fastify-type-provider-zod'
import type { OpenAPIV3_1 } from 'openapi-types'
import type { z } from 'zod'
import { ApiError } from '../errors.ts'
import { PUBLIC } from '../http/route-access.ts'

/** A Fastify scope whose routes declare zod schemas (handlers get the parsed, typed input). */
export type ApiScope = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>

/** Where the generated document is served (without a token: clients fetch it to generate). */
export const OPENAPI_PATH = '/api/0/openapi.json'

/**
 * Validates a request part with its route's zod schema. Invalid input is the catalogue's 400
 * naming the fields (`invalid <what>: field: message`, `what` being the schema's description);
 * an invalid path id is a 404, since it names no resource.
 */
export const apiValidatorCompiler: FastifySchemaCompiler<z.ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const r = schema.safeParse(data)
    if (r.success) return { value: r.data }
    if (httpPart === 'params') {
      const name = String(r.error.issues[0]?.path[0] ?? 'resource').replace(/Id$/, '')
      return { error: new ApiError('not_found', `no such ${name}`) }
    }
    const what = schema.description ?? (httpPart === 'body' ? 'body' : 'query')
    const fields = r.error.issues.map((i) => `${i.path.join('.') || what}: ${i.message}`)
    return { error: new ApiError('bad_request', `invalid ${what}: ${fields.join('; ')}`, fields) }
  }

/**
 * The route-schema key that documents a multipart body read as a stream (`@fastify/multipart`,
 * no zod body schema to generate it from): the names of its file parts.
 */
export const MULTIPART_PARTS = 'x-multipart-parts'

/** Turns each operation's {@link MULTIPART_PARTS} into the required multipart body it reads. */
function multipartBodies(doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item ?? {})) {
      const o = op as OpenAPIV3_1.OperationObject & Record<string, unknown>
      const parts = o[MULTIPART_PARTS]
      if (!Array.isArray(parts)) continue
      delete o[MULTIPART_PARTS]
      const file = { type: 'array', items: { type: 'string', format: 'binary' } } as const
      o.requestBody = {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              properties: Object.fromEntries(parts.map((p) => [String(p), file])),
              minProperties: 1,
            },
          },
        },
      }
    }
  }
  return doc
}

/** A 204 answer has no body: the generated entry must not promise a JSON one. */
function dropNoContentBodies(doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  for (const item of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(item ?? {})) {
      const responses = (op as OpenAPIV3_1.OperationObject).responses
      const noContent = responses?.['204'] as OpenAPIV3_1.ResponseObject | undefined
      if (noContent !== undefined) delete noContent.content
    }
  }
  return doc
}

/**
 * Makes `scope` schema-first: zod validates params, query and body and checks every answer
 * (`fastify-type-provider-zod`), and `@fastify/swagger` collects the routes registered after
 * this call into the OpenAPI 3.1 document served at {@link OPENAPI_PATH}. The document cannot
 * drift from the routes: it is built from the same schemas that validate them. Returns nothing:
 * a Fastify instance is thenable, so an async function returning one would resolve to another.
 */
export async function schemaFirst(scope: FastifyInstance): Promise<void> {
  scope.setValidatorCompiler(apiValidatorCompiler)
  scope.setSerializerCompiler(serializerCompiler)
  await scope.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Error-ingest management API',
        version: '0',
        description:
          'Every route needs `Authorization: Bearer <token>` (an API token or `INGEST_ADMIN_TOKEN`) or a UI session. Errors answer `{"detail": "..."}`. Paged lists return the next cursor in the `x-next-cursor` header.',
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: (input) =>
      multipartBodies(
        dropNoContentBodies(jsonSchemaTransformObject(input) as OpenAPIV3_1.Document),
      ),
  })
  scope.withTypeProvider<ZodTypeProvider>().get(
    OPENAPI_PATH,
    {
      config: { access: PUBLIC },
      schema: { summary: 'This document (no token needed)', security: [] },
    },
    async () => scope.swagger(),
  )
}
