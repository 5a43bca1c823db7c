/**
 * The one catalogue of client-facing errors. Each code maps to an HTTP status and to the
 * outcome reason recorded for the items it rejects (Relay's `BadStoreRequest` idea).
 * Every error answer has the body `{"detail": "..."}`; nothing a client sends yields a 500.
 */

/** Catalogue entries: HTTP status and outcome reason (null: not counted as an outcome). */
export const ERRORS = {
  missing_auth: { status: 401, reason: 'auth_missing' },
  bad_auth: { status: 401, reason: 'auth_invalid' },
  multiple_auth: { status: 401, reason: 'auth_invalid' },
  bad_key_format: { status: 401, reason: 'auth_invalid' },
  unknown_key: { status: 403, reason: 'unknown_key' },
  revoked_key: { status: 403, reason: 'revoked_key' },
  wrong_project: { status: 403, reason: 'wrong_project' },
  bad_project_path: { status: 400, reason: 'project_id' },
  bad_protocol_version: { status: 400, reason: 'auth_version' },
  empty_body: { status: 400, reason: 'no_data' },
  bad_compression: { status: 400, reason: 'invalid_compression' },
  unsupported_encoding: { status: 415, reason: 'invalid_compression' },
  invalid_envelope: { status: 400, reason: 'invalid_envelope' },
  invalid_json: { status: 400, reason: 'invalid_json' },
  too_large: { status: 413, reason: 'too_large' },
  envelope_mismatch: { status: 400, reason: 'invalid_envelope' },
  over_quota: { status: 429, reason: 'quota_exceeded' },
  overloaded: { status: 429, reason: 'overloaded' },
  storage_unavailable: { status: 503, reason: 'storage_unavailable' },
  unauthorized: { status: 401, reason: null },
  forbidden: { status: 403, reason: null },
  not_found: { status: 404, reason: null },
  bad_request: { status: 400, reason: null },
  conflict: { status: 409, reason: null },
  gone: { status: 410, reason: null },
  unsupported_media_type: { status: 415, reason: null },
} as const satisfies Record<string, { status: number; reason: string | null }>

/** A catalogue code. */
export type ErrorCode = keyof typeof ERRORS

/** The error thrown anywhere on a request path; rendered once by the app's error handler. */
export class ApiError extends Error {
  readonly code: ErrorCode
  readonly status: number
  readonly causes: string[]
  readonly headers: Record<string, string>

  constructor(
    code: ErrorCode,
    detail: string,
    causes: string[] = [],
    headers: Record<string, string> = {},
  ) {
    super(detail)
    this.code = code
    this.status = ERRORS[code].status
    this.causes = causes
    this.headers = headers
  }

  /** The outcome reason to count for items this error rejected. */
  get reason(): string | null {
    return ERRORS[this.code].reason
  }

  /** The JSON body clients see. */
  toBody(): { detail: string; causes?: string[] } {
    return this.causes.length > 0
      ? { detail: this.message, causes: this.causes }
      : { detail: this.message }
  }
}

/**
 * The HTTP status of anything thrown on a request path: the catalogue's for an `ApiError`,
 * Fastify's own 4xx (body too large, bad media type, URL too long …), else 500. Every error
 * handler (API, UI pages, OTLP) answers with this status, so one client mistake gets the same
 * status whichever part of the server saw it.
 */
export function errorStatus(err: unknown): number {
  if (err instanceof ApiError) return err.status
  const code = (err as { statusCode?: unknown } | null)?.statusCode
  return typeof code === 'number' && code >= 400 && code < 600 ? code : 500
}

/**
 * The one 404 of a kind of object (`no such issue`): a missing object and one the caller may not
 * see (another team's, or another project's under the caller's own project) must answer the
 * same bytes, so ids cannot be probed for existence. Every lookup that 404s uses this.
 */
export const notFound = (what: string): ApiError => new ApiError('not_found', `no such ${what}`)
