import { createHash } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { ADMIN } from '../support/helpers.ts'
import type { Caller, TeamObjects } from './world.ts'
import { makeToken, makeUser, releaseFileBody, uploadReleaseFile } from './world.ts'

/** Values for a route's path parameters and body, by name. */
export type Ids = Record<string, string | number>

/** How to call one route of the route table beyond filling its path parameters. */
export interface RouteSpec {
  /** The JSON body (API) or form fields (UI) of a valid request. */
  body?: (ids: Ids) => Record<string, unknown>
  /** A query string (without `?`). */
  query?: (ids: Ids) => string
  /**
   * Objects made for one allowed call that changes or removes its object (so the next caller
   * finds its own), merged over the team's ids.
   */
  fresh?: (app: FastifyInstance, team: TeamObjects, caller: Caller) => Promise<Ids>
  /** A body that is not JSON (multipart chunk uploads): its content type and bytes. */
  rawBody?: () => { contentType: string; payload: Buffer }
  /** A Server-Sent Events stream: an allowed call is checked over a socket, headers only. */
  stream?: true
  /**
   * Ids of the request's body or query that name an object under the located project or team
   * (the path's own object ids are found from the URL): the mixed pass swaps them for another
   * project's.
   */
  objectIds?: string[]
  /** What a missing object answers when it is not a 404 (a bulk action skips unknown ids). */
  missingStatus?: number
  /** Never called in the isolation pass, with the reason (it touches no team's object). */
  noTeamObject?: string
}

/** The ids of a team's objects, by the path parameter names of the route table. */
export const idsOf = (t: TeamObjects): Ids => ({
  projectId: t.projectId,
  issueId: t.issueId,
  eventId: t.eventId,
  slug: t.slug,
  release: t.release,
  version: t.release,
  fileId: t.fileId,
  project: t.projectSlug,
  keyId: t.keyId,
  ruleId: t.ruleId,
  teamId: t.teamId,
  org: t.org,
  projectSlug: t.projectSlug,
  userId: t.userId,
  tokenId: t.tokenId,
  invitationId: t.invitationId,
  inviteId: t.invitationId,
})

/** Ids that name nothing: what a missing object answers, to compare a hidden one with. */
export const MISSING: Ids = {
  projectId: 999_999_999,
  issueId: 999_999_999,
  eventId: 'f'.repeat(32),
  slug: 'no-such-monitor',
  release: 'no-such@0',
  version: 'no-such@0',
  fileId: 999_999_999,
  project: 'no-such-project',
  keyId: 999_999_999,
  ruleId: 999_999_999,
  teamId: 999_999_999,
  org: 'no-such-org',
  projectSlug: 'no-such-project',
  userId: 999_999_999,
  tokenId: 999_999_999,
  invitationId: 999_999_999,
  inviteId: 999_999_999,
}

let n = 0
const next = () => ++n

async function freshKey(app: FastifyInstance, t: TeamObjects): Promise<Ids> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/0/projects/${t.projectId}/keys/`,
    headers: ADMIN,
    payload: { label: `fresh-${next()}` },
  })
  return { keyId: res.json<{ id: number }>().id }
}

async function freshRule(app: FastifyInstance, t: TeamObjects): Promise<Ids> {
  const res = await app.inject({
    method: 'POST',
    url: `/api/0/projects/${t.projectId}/alert-rules/`,
    headers: ADMIN,
    payload: {
      name: `fresh ${next()}`,
      conditions: [{ type: 'regression' }],
      channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook' },
    },
  })
  return { ruleId: res.json<{ id: number }>().id }
}

async function freshRelease(app: FastifyInstance, t: TeamObjects): Promise<Ids> {
  const version = `fresh-${next()}`
  await app.inject({
    method: 'POST',
    url: `/api/0/organizations/${t.org}/releases/`,
    headers: ADMIN,
    payload: { version, projects: [t.projectSlug] },
  })
  return { version }
}

async function freshReleaseFile(app: FastifyInstance, t: TeamObjects): Promise<Ids> {
  return { fileId: await uploadReleaseFile(app, t.org, t.release, `~/fresh-${next()}.js`) }
}

async function freshReleaseWithFile(app: FastifyInstance, t: TeamObjects): Promise<Ids> {
  const version = String((await freshRelease(app, t))['version'])
  await uploadReleaseFile(app, t.org, version, `~/fresh-${next()}.js`)
  return { version }
}

async function freshMember(app: FastifyInstance, t: TeamObjects): Promise<Ids> {
  const email = `fresh-${next()}@example.com`
  const userId = await makeUser(app, email)
  await app.inject({
    method: 'PUT',
    url: `/api/0/teams/${t.teamId}/members/`,
    headers: ADMIN,
    payload: { email, role: 'viewer' },
  })
  return { userId }
}

async function freshUser(app: FastifyInstance): Promise<Ids> {
  const email = `new-${next()}@example.com`
  await makeUser(app, email)
  return { email }
}

/**
 * Bodies and special cases by `METHOD url`. A route missing here is called with its path
 * parameters filled and no body; if it needs one, the isolation test fails on its 400, so a new
 * route cannot pass unchecked.
 */
export const SPECS: Record<string, RouteSpec> = {
  'POST /api/0/projects/': {
    body: (ids) => ({ name: `made ${next()}`, team_id: ids['teamId'] }),
  },
  'PUT /api/0/projects/:projectId/': { body: () => ({ quota: null }) },
  'PUT /api/0/projects/:projectId/privacy/': { body: () => ({ scrub_data: true }) },
  'PUT /api/0/projects/:projectId/team/': { body: (ids) => ({ team_id: ids['teamId'] }) },
  'PUT /api/0/issues/:issueId/': { body: () => ({ status: 'resolved' }) },
  'POST /api/0/projects/:projectId/alert-rules/': {
    body: () => ({
      name: `rule ${next()}`,
      conditions: [{ type: 'regression' }],
      channel: { type: 'webhook', url: 'http://127.0.0.1:9/hook' },
    }),
  },
  'DELETE /api/0/projects/:projectId/alert-rules/:ruleId/': {
    fresh: (app, t) => freshRule(app, t),
  },
  'POST /api/0/projects/:projectId/keys/': { body: () => ({ label: `key-${next()}` }) },
  'DELETE /api/0/projects/:projectId/keys/:keyId/': { fresh: (app, t) => freshKey(app, t) },
  'POST /api/0/invitations/': { body: () => ({ email: `invitee-${next()}@example.com` }) },
  'POST /settings/invitations': { body: () => ({ email: `ui-invitee-${next()}@example.com` }) },
  'POST /api/0/teams/': { body: () => ({ name: `team ${next()}` }) },
  'PUT /api/0/teams/:teamId/members/': {
    body: (ids) => ({ email: ids['email'] ?? 'nobody@example.com', role: 'viewer' }),
    fresh: (app) => freshUser(app),
  },
  'DELETE /api/0/teams/:teamId/members/:userId/': { fresh: (app, t) => freshMember(app, t) },
  'POST /api/0/internal/clock/tick/': {},
  'POST /projects': { body: (ids) => ({ name: `made ${next()}`, team: String(ids['teamId']) }) },
  'POST /projects/:projectId/issues/bulk': {
    body: (ids) => ({ action: 'resolve', issue: String(ids['issueId']) }),
    objectIds: ['issueId'],
    missingStatus: 303,
  },
  'PUT /api/0/projects/:projectId/issues/': {
    body: (ids) => ({ ids: [ids['issueId']], status: 'resolved' }),
    objectIds: ['issueId'],
    missingStatus: 200,
  },
  'GET /api/0/projects/:projectId/outcomes/': {
    query: (ids) => `key_id=${ids['keyId']}`,
    objectIds: ['keyId'],
    missingStatus: 200,
  },
  'GET /api/0/projects/:projectId/outcomes/series/': {
    query: (ids) => `key_id=${ids['keyId']}`,
    objectIds: ['keyId'],
    missingStatus: 200,
  },
  'GET /issues/:issueId': { query: (ids) => `event=${ids['eventId']}`, objectIds: ['eventId'] },
  'POST /issues/:issueId/action': { body: () => ({ action: 'resolve' }) },
  'POST /projects/:projectId/settings/keys': { body: () => ({ label: `ui-${next()}` }) },
  'POST /projects/:projectId/settings/keys/:keyId/revoke': {
    fresh: (app, t) => freshKey(app, t),
  },
  'POST /projects/:projectId/settings/privacy': {
    body: () => ({ scrub_data: 'on', scrub_defaults: 'on' }),
  },
  'POST /projects/:projectId/settings/quota': {
    body: () => ({ events: '', window_seconds: '3600' }),
  },
  'POST /projects/:projectId/settings/rules': {
    body: () => ({
      name: `ui rule ${next()}`,
      regression: 'on',
      channel: 'webhook',
      url: 'http://127.0.0.1:9/hook',
    }),
  },
  'POST /projects/:projectId/settings/rules/:ruleId/delete': {
    fresh: (app, t) => freshRule(app, t),
  },
  'POST /account/tokens': { body: () => ({ name: `token ${next()}`, scope: 'read' }) },
  'POST /account/tokens/:tokenId/revoke': {
    // A caller revokes its own token; another user's token is a 404 (tokens are per user).
    fresh: async (app, _t, caller) => ({
      tokenId: (await makeToken(app, caller.userId, ['read'])).id,
    }),
  },
  'POST /settings/teams': { body: () => ({ name: `ui team ${next()}` }) },
  'POST /settings/teams/:teamId/members': {
    body: (ids) => ({ email: ids['email'] ?? 'nobody@example.com', role: 'viewer' }),
    fresh: (app) => freshUser(app),
  },
  'POST /settings/teams/:teamId/members/:userId/remove': {
    fresh: (app, t) => freshMember(app, t),
  },
  'POST /settings/teams/:teamId/projects': {
    body: (ids) => ({ project: String(ids['projectId']) }),
  },
  'POST /api/0/organizations/:org/chunk-upload/': { rawBody: () => chunkUpload() },
  'POST /api/0/organizations/:org/artifactbundle/assemble/': {
    // The body names projects: another team's answers as a missing one, Sentry's 400 "One or
    // more projects are invalid" (what sentry-cli prints as it is).
    objectIds: ['projectSlug'],
    missingStatus: 400,
    // No chunks: nothing is missing, and an empty bundle is answered 200 `error`.
    body: (ids) => ({
      checksum: 'da39a3ee5e6b4b0d3255bfef95601890afd80709',
      chunks: [],
      projects: [ids['projectSlug']],
    }),
  },
  'POST /api/0/organizations/:org/releases/:version/assemble/': {
    // No chunks: nothing is missing, and an empty bundle is answered 200 `error`.
    body: () => ({ checksum: 'da39a3ee5e6b4b0d3255bfef95601890afd80709', chunks: [] }),
  },
  'POST /api/0/organizations/:org/releases/': {
    // The body names projects: another team's answers as a missing one.
    objectIds: ['projectSlug'],
    body: (ids) => ({ version: `access-${next()}`, projects: [ids['projectSlug']] }),
  },
  'POST /api/0/projects/:org/:project/releases/': {
    body: () => ({ version: `access-${next()}` }),
  },
  'PUT /api/0/organizations/:org/releases/:version/': {
    body: () => ({ dateReleased: '2026-11-27T00:00:00Z' }),
  },
  'PUT /api/0/projects/:org/:project/releases/:version/': {
    body: () => ({ dateReleased: '2026-11-27T00:00:00Z' }),
  },
  'DELETE /api/0/organizations/:org/releases/:version/': {
    fresh: (app, t) => freshRelease(app, t),
  },
  'DELETE /api/0/projects/:org/:project/releases/:version/': {
    fresh: (app, t) => freshRelease(app, t),
  },
  'POST /api/0/organizations/:org/releases/:version/deploys/': {
    body: () => ({ environment: 'production' }),
  },
  'POST /api/0/organizations/:org/releases/:version/files/': {
    rawBody: () => releaseFileBody(`~/access-${next()}.js`, 'console.log(1)\n'),
  },
  'POST /api/0/projects/:org/:project/releases/:version/files/': {
    rawBody: () => releaseFileBody(`~/access-${next()}.js`, 'console.log(1)\n'),
  },
  'DELETE /api/0/organizations/:org/releases/:version/files/:fileId/': {
    fresh: (app, t) => freshReleaseFile(app, t),
  },
  'DELETE /api/0/projects/:org/:project/releases/:version/files/:fileId/': {
    fresh: (app, t) => freshReleaseFile(app, t),
  },
  'DELETE /api/0/organizations/:org/files/source-maps/': {
    // Deletes every file of a release: each allowed call gets a release of its own.
    fresh: (app, t) => freshReleaseWithFile(app, t),
    query: (ids) => `name=${encodeURIComponent(String(ids['version']))}`,
    objectIds: ['version'],
  },
  'DELETE /api/0/projects/:org/:project/files/source-maps/': {
    // Deletes every file of a release: each allowed call gets a release of its own.
    fresh: (app, t) => freshReleaseWithFile(app, t),
    query: (ids) => `name=${encodeURIComponent(String(ids['version']))}`,
    objectIds: ['version'],
  },
  'GET /ui/live': { query: (ids) => `project=${ids['projectId']}`, stream: true },
  'POST /logout': { noTeamObject: 'ends the caller’s own session; run last in the role pass' },
}

/** A multipart chunk upload of one small chunk, as sentry-cli sends it. */
function chunkUpload(): { contentType: string; payload: Buffer } {
  const data = Buffer.from(`chunk ${next()}`)
  const sha1 = createHash('sha1').update(data).digest('hex')
  const boundary = 'access-boundary'
  const payload = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${sha1}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
    data,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ])
  return { contentType: `multipart/form-data; boundary=${boundary}`, payload }
}

/** The URL of a route with its `:params` filled from `ids` (a missing one throws). */
export function fillUrl(url: string, ids: Ids, query?: string): string {
  const path = url.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
    const v = ids[name]
    if (v === undefined) throw new Error(`no value for :${name} of ${url}: add it to idsOf`)
    return encodeURIComponent(String(v))
  })
  return query === undefined ? path : `${path}?${query}`
}
