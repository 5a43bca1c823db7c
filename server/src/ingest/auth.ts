import { ApiError } from '../errors.ts'

/** Where a credential was found; the spec's precedence order is query, header, envelope. */
export type CredentialSource = 'query' | 'header' | 'envelope'

/** The ingest credential of one request. */
export interface Credentials {
  publicKey: string
  source: CredentialSource
  /** Project id from the envelope `dsn`, when that is the source. */
  dsnProjectId?: string
  client?: string
}

/** Keys we mint are 32 hex digits (the only shape every SDK and Relay accept). */
const KEY_SHAPE = /^[0-9a-f]{32}$/

function checkKey(key: string): string {
  const k = key.trim().toLowerCase()
  if (k === '') throw new ApiError('bad_auth', 'missing public key in auth header')
  if (!KEY_SHAPE.test(k)) {
    throw new ApiError('bad_key_format', 'malformed public key: expected 32 hexadecimal digits')
  }
  return k
}

function checkVersion(version: string | undefined): void {
  if (version === undefined || version === '') return
  const major = Number(version.split('.')[0])
  if (!Number.isInteger(major)) throw new ApiError('bad_auth', `bad sentry_version "${version}"`)
  if (major > 7)
    throw new ApiError('bad_protocol_version', `unsupported protocol version (${major})`)
}

/**
 * Parses `Sentry sentry_key=K, sentry_version=7, …` (and the neutral `Ingest …` / `ingest_key`).
 * Separators may be `, ` or `,`; unknown pairs are ignored. Returns undefined when the value
 * does not start with a known scheme word (such headers are ignored, as Relay does).
 */
export function parseAuthHeader(
  value: string,
): { key: string; version?: string; client?: string } | undefined {
  const space = value.indexOf(' ')
  if (space === -1) return undefined
  const scheme = value.slice(0, space).toLowerCase()
  if (scheme !== 'sentry' && scheme !== 'ingest') return undefined
  const pairs = new Map<string, string>()
  for (const part of value.slice(space + 1).split(',')) {
    const eq = part.indexOf('=')
    if (eq === -1) continue
    pairs.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim())
  }
  const key = pairs.get('sentry_key') ?? pairs.get('ingest_key')
  if (key === undefined || key === '')
    throw new ApiError('bad_auth', 'bad auth header: missing sentry_key')
  const version = pairs.get('sentry_version') ?? pairs.get('ingest_version')
  const client = pairs.get('sentry_client') ?? pairs.get('ingest_client')
  return {
    key,
    ...(version !== undefined ? { version } : {}),
    ...(client !== undefined ? { client } : {}),
  }
}

function headerString(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v
}

/**
 * Finds the credential carried by the request itself: the query parameter first, then the auth
 * headers. `undefined` means none: the caller may then look at the envelope's `dsn`.
 */
export function credentialsFromRequest(
  query: Record<string, unknown>,
  headers: Record<string, string | string[] | undefined>,
): Credentials | undefined {
  const q = (name: string): string | undefined => {
    const v = query[name]
    return typeof v === 'string'
      ? v
      : Array.isArray(v) && typeof v[0] === 'string'
        ? v[0]
        : undefined
  }
  const queryKey = q('ingest_key') ?? q('sentry_key')
  if (queryKey !== undefined) {
    checkVersion(q('sentry_version') ?? q('ingest_version'))
    const client = q('sentry_client') ?? q('ingest_client')
    return { publicKey: checkKey(queryKey), source: 'query', ...(client ? { client } : {}) }
  }
  for (const name of ['x-ingest-auth', 'x-sentry-auth', 'authorization']) {
    const value = headerString(headers[name])
    if (value === undefined) continue
    const parsed = parseAuthHeader(value)
    if (parsed === undefined) continue
    checkVersion(parsed.version)
    return {
      publicKey: checkKey(parsed.key),
      source: 'header',
      ...(parsed.client !== undefined ? { client: parsed.client } : {}),
    }
  }
  return undefined
}

/** Reads the credential from an envelope header's `dsn` (self-authenticating envelopes, Go, tunnels). */
export function credentialsFromDsn(dsn: unknown): Credentials {
  if (typeof dsn !== 'string') {
    throw new ApiError(
      'missing_auth',
      'missing authorization: send sentry_key in the query, an X-Sentry-Auth header, or a dsn in the envelope header',
    )
  }
  let url: URL
  try {
    url = new URL(dsn)
  } catch {
    throw new ApiError('bad_auth', 'bad dsn in envelope header')
  }
  const projectId = url.pathname.split('/').filter(Boolean).pop()
  return {
    publicKey: checkKey(decodeURIComponent(url.username)),
    source: 'envelope',
    ...(projectId !== undefined ? { dsnProjectId: projectId } : {}),
  }
}
