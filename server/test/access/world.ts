import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { hashPassword } from '../../src/accounts/passwords.ts'
import { hashToken } from '../../src/http-kit/tokens.ts'
import type { TeamRole, TokenScope } from '../../src/store/team-types.ts'
import { ADMIN, eid, sendItems } from '../support/helpers.ts'
import { signIn } from '../support/ui-helpers.ts'

/** The ids of one team's objects, by the path parameter name that carries them. */
export interface TeamObjects {
  teamId: number
  /** The team's slug: the `org` of the sentry-cli routes. */
  org: string
  /** The project's slug (the sentry-cli `--project`). */
  projectSlug: string
  projectId: number
  projectName: string
  teamName: string
  key: string
  issueId: number
  eventId: string
  slug: string
  release: string
  /** A file of the release uploaded through the legacy release-file API. */
  fileId: number
  keyId: number
  ruleId: number
  /** A member of the team (the target of member routes). */
  userId: number
  /** An API token of that member (the target of the token revoke route). */
  tokenId: number
  /** A pending invitation made for the team's people (instance-admin routes name it). */
  invitationId: number
}

/** Someone calling as a member of team A: a browser session or an API token. */
export interface Caller {
  label: string
  role: TeamRole
  userId: number
  /** undefined: a browser session (every scope). */
  scope: TokenScope | undefined
  /** Headers for a request; `csrf` is sent for state-changing session calls. */
  headers(api: boolean, method: string): Record<string, string>
  /** Extra form fields (the session's CSRF token). */
  form: Record<string, string>
}

const PASSWORD = 'correct horse battery'

async function ok(res: LightMyRequestResponse, what: string): Promise<LightMyRequestResponse> {
  if (res.statusCode >= 300) throw new Error(`${what}: ${res.statusCode} ${res.body}`)
  return res
}

/** Makes a user directly in the store (the users feature invites them; not needed here). */
export async function makeUser(app: FastifyInstance, email: string): Promise<number> {
  return (await app.services.store.createUser(email, await hashPassword(PASSWORD), false)).id
}

/** A fresh token of a user with the given scopes; returns the secret and its id. */
export async function makeToken(
  app: FastifyInstance,
  userId: number,
  scopes: readonly TokenScope[],
): Promise<{ secret: string; id: number }> {
  const secret = `ingt_test_${userId}_${Math.random().toString(16).slice(2)}`
  const t = await app.services.store.createToken(userId, 'test', hashToken(secret), scopes)
  return { secret, id: t.id }
}

async function api(app: FastifyInstance, method: 'POST' | 'PUT', url: string, payload: unknown) {
  return ok(await app.inject({ method, url, headers: ADMIN, payload: payload as object }), url)
}

/**
 * A team with a project holding one of everything, made by the instance admin token; with
 * `inTeam`, a second such project in that existing team (its objects are another project's).
 */
export async function buildTeam(
  app: FastifyInstance,
  name: string,
  inTeam?: TeamObjects,
): Promise<TeamObjects> {
  const team =
    inTeam === undefined
      ? (await api(app, 'POST', '/api/0/teams/', { name: `${name} team` })).json<{
          id: number
          slug: string
        }>()
      : { id: inTeam.teamId, slug: inTeam.org }
  const projectName = `${name}-project-marker`
  const p = (
    await api(app, 'POST', '/api/0/projects/', { name: projectName, team_id: team.id })
  ).json<{ id: number; dsn: string; slug: string }>()
  const key = new URL(p.dsn).username
  const project = { id: p.id, key }
  const eventId = eid(p.id * 1000 + 1)
  await ok(
    await sendItems(app, project, [
      ['event', { event_id: eventId, message: `${name} boom`, level: 'error' }],
    ]),
    'event',
  )
  const release = `${name}@1.0.0`
  const now = new Date().toISOString()
  await ok(
    await sendItems(app, project, [
      [
        'session',
        {
          sid: crypto.randomUUID(),
          init: true,
          started: now,
          timestamp: now,
          status: 'exited',
          attrs: { release },
        },
      ],
      [
        'check_in',
        {
          check_in_id: crypto.randomUUID().replaceAll('-', ''),
          monitor_slug: `${name}-nightly`,
          status: 'ok',
          monitor_config: { schedule: { type: 'crontab', value: '0 * * * *' } },
        },
      ],
    ]),
    'session and check-in',
  )
  const issues = (
    await ok(await app.inject({ url: `/api/0/projects/${p.id}/issues/`, headers: ADMIN }), 'issues')
  ).json<{ id: number }[]>()
  const issueId = issues[0]?.id
  if (issueId === undefined) throw new Error('no issue')
  const keyId = (
    await api(app, 'POST', `/api/0/projects/${p.id}/keys/`, { label: 'component' })
  ).json<{ id: number }>().id
  const ruleId = (
    await api(app, 'POST', `/api/0/projects/${p.id}/alert-rules/`, {
      name: 'rule',
      conditions: [{ type: 'regression' }],
      channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook' },
    })
  ).json<{ id: number }>().id
  // The same version recorded through the release API (sentry-cli `releases new`).
  await api(app, 'POST', `/api/0/organizations/${team.slug}/releases/`, {
    version: release,
    projects: [p.slug],
  })
  const fileId = await uploadReleaseFile(app, team.slug, release, `~/${name}.js`)
  const email = `${name}-owner@example.com`
  const userId = await makeUser(app, email)
  await api(app, 'PUT', `/api/0/teams/${team.id}/members/`, { email, role: 'admin' })
  const tokenId = (await makeToken(app, userId, ['read', 'write', 'admin'])).id
  const invitationId = (
    await api(app, 'POST', '/api/0/invitations/', { email: `${name}-invitee@example.com` })
  ).json<{ id: number }>().id
  return {
    teamId: team.id,
    org: team.slug,
    projectSlug: p.slug,
    teamName: inTeam?.teamName ?? `${name} team`,
    projectId: p.id,
    projectName,
    key,
    issueId,
    eventId,
    slug: `${name}-nightly`,
    release,
    fileId,
    keyId,
    ruleId,
    userId,
    tokenId,
    invitationId,
  }
}

/** The scopes of a token of the given level (each includes the ones below). */
export const scopesUpTo = (top: TokenScope): TokenScope[] =>
  (['read', 'write', 'admin'] as const).slice(0, ['read', 'write', 'admin'].indexOf(top) + 1)

/**
 * A user of `role` in the team, signed in through the login form, and a token of that user for
 * each scope: the callers whose answers the isolation test checks.
 */
export async function callersFor(
  app: FastifyInstance,
  teamId: number,
  role: TeamRole,
): Promise<Caller[]> {
  const email = `${role}-of-${teamId}@example.com`
  const userId = await makeUser(app, email)
  await api(app, 'PUT', `/api/0/teams/${teamId}/members/`, { email, role })
  const ui = await signIn(app, email, PASSWORD)
  const callers: Caller[] = [
    {
      label: `${role} (session)`,
      role,
      userId,
      scope: undefined,
      headers: (isApi, method) => ({
        cookie: ui.cookie,
        ...(isApi && method !== 'GET' ? { 'x-csrf-token': ui.csrf } : {}),
      }),
      form: { _csrf: ui.csrf },
    },
  ]
  for (const scope of ['read', 'write', 'admin'] as const) {
    const { secret } = await makeToken(app, userId, scopesUpTo(scope))
    callers.push({
      label: `${role} (token, scope ${scope})`,
      role,
      userId,
      scope,
      headers: () => ({ authorization: `Bearer ${secret}` }),
      form: {},
    })
  }
  return callers
}

/** A multipart body of one release file as sentry-cli 2.x sends it (`releases files upload`). */
export function releaseFileBody(
  name: string,
  data: string,
): { contentType: string; payload: Buffer } {
  const boundary = 'release-file-boundary'
  const payload = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="file.js"\r\nContent-Type: application/octet-stream\r\n\r\n${data}\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\n${name}\r\n--${boundary}--\r\n`,
  )
  return { contentType: `multipart/form-data; boundary=${boundary}`, payload }
}

/** Uploads one release file (as the instance admin); returns its id. */
export async function uploadReleaseFile(
  app: FastifyInstance,
  org: string,
  version: string,
  name: string,
): Promise<number> {
  const { contentType, payload } = releaseFileBody(name, 'console.log(1)\n')
  const res = await app.inject({
    method: 'POST',
    url: `/api/0/organizations/${org}/releases/${encodeURIComponent(version)}/files/`,
    headers: { ...ADMIN, 'content-type': contentType },
    payload,
  })
  if (res.statusCode !== 201) throw new Error(`release file: ${res.statusCode} ${res.body}`)
  return Number(res.json<{ id: string }>().id)
}
