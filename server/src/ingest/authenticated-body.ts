import type { IncomingMessage } from 'node:http'
import type { FastifyRequest } from 'fastify'
import { ApiError } from '../errors.ts'
import { credentialsFromDsn, credentialsFromRequest } from './auth.ts'
import { readBody } from './body.ts'
import { parseEnvelopeHeader } from './envelope.ts'
import type { KeyResolver, ResolvedKey } from './keys.ts'
import { refuseWhileDiskLow } from './protection.ts'
import { pathProject } from './request.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** The key the request was authenticated with before its body was read. */
    ingestKey?: ResolvedKey
  }
}

/** How a route reads its body: caps, and whether the envelope header may carry the key. */
export interface AuthenticatedBodyOptions {
  keys: KeyResolver
  maxCompressed: number
  maxDecoded: number
  /** Envelope endpoints: without a query or header credential, the first line's `dsn` is the key. */
  envelopeAuth: boolean
}

/**
 * Authenticates an ingest request before its body costs anything: the query or header
 * credential is resolved first; without one, only the envelope header (at most
 * `protection.maxAuthLine` decoded bytes) is read and its `dsn` resolved before the rest. A
 * request without a valid key is refused having cost at most that line. The disk guard and the
 * global byte budget are applied here too. Sets `req.ingestKey`.
 */
export async function readAuthenticatedBody(
  req: FastifyRequest,
  payload: IncomingMessage,
  opts: AuthenticatedBodyOptions,
): Promise<Buffer> {
  const protection = req.server.ingestProtection
  try {
    const projectId = pathProject(req)
    const creds = credentialsFromRequest(req.query as Record<string, unknown>, req.headers)
    if (creds !== undefined) req.ingestKey = await opts.keys.resolve(creds, projectId)
    else if (!opts.envelopeAuth) {
      throw new ApiError(
        'missing_auth',
        'missing authorization: send sentry_key in the query or an X-Sentry-Auth header',
      )
    }
    refuseWhileDiskLow(protection)
    const cap = req.server.services.config.protection.maxAuthLine
    return await readBody(payload, {
      maxCompressed: opts.maxCompressed,
      maxDecoded: opts.maxDecoded,
      ...(req.ingestBudget !== undefined ? { budget: req.ingestBudget } : {}),
      ...(req.ingestKey === undefined
        ? {
            firstLine: {
              cap,
              tooLong: () =>
                new ApiError(
                  'missing_auth',
                  `missing authorization, and no envelope header within ${cap} bytes`,
                ),
              check: async (line: Buffer) => {
                let header: Record<string, unknown>
                try {
                  header = parseEnvelopeHeader(line)
                } catch {
                  throw new ApiError(
                    'missing_auth',
                    'missing authorization, and the envelope header is not JSON',
                  )
                }
                req.ingestKey = await opts.keys.resolve(
                  credentialsFromDsn(header['dsn']),
                  projectId,
                )
              },
            },
          }
        : {}),
    })
  } catch (err) {
    // Nothing more of this body will be read: let the client's bytes drain so it reads the answer.
    payload.resume()
    throw err
  }
}
