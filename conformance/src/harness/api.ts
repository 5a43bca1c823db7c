/**
 * Typed client for the server's management API: how tests create projects and read back what
 * the server stored. Every response is zod-parsed, so a contract drift fails loudly here
 * instead of as `undefined` deep inside an assertion.
 */
import { z } from 'zod'

const idSchema = z.union([z.number(), z.string()])

/** `POST /api/0/projects/` result. */
export const projectSchema = z.looseObject({
  id: z.number().int(),
  slug: z.string(),
  name: z.string(),
  dsn: z.string(),
})
/** A project as the API returns it. */
export type Project = z.infer<typeof projectSchema>

/**
 * One stack frame of a stored event as the event API returns it: what the source-map tests read
 * of a resolved frame (original function, file, line, context, and the resolver's `data` notes).
 */
export const frameSchema = z.looseObject({
  function: z.string().optional(),
  filename: z.string().optional(),
  lineno: z.number().optional(),
  context_line: z.string().optional(),
  data: z.record(z.string(), z.unknown()).optional(),
})

/** One entry of `GET /api/0/projects/{id}/keys/`. */
export const keySchema = z.looseObject({
  id: idSchema,
  label: z.string().nullable(),
  public_key: z.string(),
  dsn: z.string(),
})
/** A project key (DSN) as the API returns it. */
export type Key = z.infer<typeof keySchema>

/** One entry of `GET /api/0/projects/{id}/issues/`, also `GET /api/0/issues/{id}/`. */
export const issueSchema = z.looseObject({
  id: idSchema,
  title: z.string(),
  culprit: z.string().nullable(),
  level: z.string(),
  status: z.string(),
  count: z.number().int(),
  first_seen: z.string(),
  last_seen: z.string(),
})
/** An issue (group of events) as the API returns it. */
export type Issue = z.infer<typeof issueSchema>

/** One entry of `GET /api/0/issues/{id}/events/`. */
export const issueEventSchema = z.looseObject({ event_id: z.string() })
/** An event reference in an issue's event list. */
export type IssueEvent = z.infer<typeof issueEventSchema>

/** `GET /api/0/projects/{id}/events/{event_id}/`: the stored normalised event plus `issue_id`. */
export const storedEventSchema = z.looseObject({ event_id: z.string(), issue_id: idSchema })
/** A stored event; fields beyond `event_id`/`issue_id` are whatever the server normalised. */
export type StoredEvent = z.infer<typeof storedEventSchema>

/** Public key and project id of a DSN, as an SDK would extract them. */
export interface DsnParts {
  publicKey: string
  projectId: string
  /** `{scheme}://{host}[:{port}]`, without the key. */
  origin: string
}

/** Splits a DSN into the parts the ingest endpoints need. */
export function parseDsn(dsn: string): DsnParts {
  const url = new URL(dsn)
  const projectId = url.pathname.split('/').filter(Boolean).at(-1)
  if (url.username === '' || projectId === undefined) throw new Error(`not a DSN: ${dsn}`)
  return { publicKey: url.username, projectId, origin: url.origin }
}

/** Thrown for unexpected HTTP statuses, with the response text for the test report. */
export class ApiError extends Error {
  readonly status: number
  constructor(method: string, path: string, status: number, body: string) {
    super(`${method} ${path} -> ${status}: ${body.slice(0, 500)}`)
    this.name = 'ApiError'
    this.status = status
  }
}

/** Base of the harness's typed API clients: one server, its admin token, JSON requests. */
export class AdminClient {
  readonly #url: string
  readonly #token: string

  constructor(url: string, token: string) {
    this.#url = url
    this.#token = token
  }

  /** One JSON request as admin; see {@link adminRequest}. */
  protected request(
    method: string,
    path: string,
    json?: unknown,
    absent: readonly number[] = [],
  ): Promise<unknown> {
    return adminRequest(this.#url, this.#token, method, path, json, absent)
  }
}

/** The management API of one running server, authenticated with the admin token. */
export class Api extends AdminClient {
  /** Creates a project; each test makes its own so test files can run in parallel. */
  async createProject(name: string): Promise<Project> {
    return projectSchema.parse(await this.request('POST', '/api/0/projects/', { name }))
  }

  /** The teams the token's user belongs to (every team for the admin token): `--org` slugs. */
  async teams(): Promise<{ id: number; slug: string }[]> {
    const body = await this.request('GET', '/api/0/teams/')
    return z.array(z.looseObject({ id: z.number(), slug: z.string() })).parse(body)
  }

  /** The project's keys (at least the default one). */
  async keys(projectId: number): Promise<Key[]> {
    return z.array(keySchema).parse(await this.request('GET', `/api/0/projects/${projectId}/keys/`))
  }

  /** The project's issues, newest first. */
  async issues(projectId: number): Promise<Issue[]> {
    const body = await this.request('GET', `/api/0/projects/${projectId}/issues/`)
    return z.array(issueSchema).parse(body)
  }

  /** One issue by id. */
  async issue(id: Issue['id']): Promise<Issue> {
    return issueSchema.parse(await this.request('GET', `/api/0/issues/${id}/`))
  }

  /** The events grouped into an issue. */
  async issueEvents(issueId: Issue['id']): Promise<IssueEvent[]> {
    const body = await this.request('GET', `/api/0/issues/${issueId}/events/`)
    return z.array(issueEventSchema).parse(body)
  }

  /** A stored event, or undefined while (or if) the server has none with that id. */
  async event(projectId: number, eventId: string): Promise<StoredEvent | undefined> {
    const path = `/api/0/projects/${projectId}/events/${eventId}/`
    const body = await this.request('GET', path, undefined, [404])
    return body === undefined ? undefined : storedEventSchema.parse(body)
  }
}

/**
 * One JSON request to the management API with a bearer token, for every typed client of the
 * harness: statuses in `absent` resolve to undefined, other non-2xx throw {@link ApiError}.
 */
export async function adminRequest(
  url: string,
  token: string,
  method: string,
  path: string,
  json?: unknown,
  absent: readonly number[] = [],
): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` }
  if (json !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${url.replace(/\/+$/, '')}${path}`, {
    method,
    headers,
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  })
  const text = await response.text()
  if (absent.includes(response.status)) return undefined
  if (!response.ok) throw new ApiError(method, path, response.status, text)
  try {
    return JSON.parse(text)
  } catch {
    throw new ApiError(method, path, response.status, `not JSON: ${text}`)
  }
}
