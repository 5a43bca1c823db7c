import { z } from 'zod'
import { actorOf, recordAudit } from '../audit/record.ts'
import { ApiError } from '../errors.ts'
import { onProject } from '../http/route-access.ts'
import type { ApiScope } from '../http-kit/openapi.ts'
import { bodyErrorResponses, errorResponses, ProjectParams } from '../http-kit/schemas.ts'
import { pathProject } from '../http-kit/validate.ts'
import { type PrivacySettings, settingsProblem } from '../privacy/settings.ts'
import type { Store } from '../store/types.ts'

const list = z.array(z.string().max(10_000)).max(10_000)

/** A project's scrubbing and filter settings as the API reads and writes them. */
export const PrivacyJson = z
  .strictObject({
    scrub_data: z.boolean().describe('Server-side data scrubbing'),
    scrub_defaults: z.boolean().describe('The default rules (keys, value patterns, cookies)'),
    sensitive_fields: list.describe('Additional sensitive key names'),
    safe_fields: list.describe('Key names never scrubbed'),
    scrub_ip_addresses: z.boolean().describe('Store no IP addresses'),
    filters: z.strictObject({
      localhost: z.boolean(),
      browser_extensions: z.boolean(),
      legacy_browsers: z.boolean(),
      web_crawlers: z.boolean(),
      error_messages: list.describe('Globs against the message and `Type: value`'),
      releases: list.describe('Globs against the release'),
      client_ips: list.describe('Addresses or CIDR blocks'),
    }),
  })
  .describe('project privacy settings')

/** A change: any subset of the fields (filters too); the rest keep their values. */
export const PrivacyPatch = z
  .strictObject({
    ...PrivacyJson.shape,
    filters: PrivacyJson.shape.filters.partial(),
  })
  .partial()
  .describe('project privacy settings change')

type PrivacyBody = z.infer<typeof PrivacyJson>
type PrivacyPatchBody = z.infer<typeof PrivacyPatch>

/** Settings as the API shows them. */
export function privacyJson(s: PrivacySettings): PrivacyBody {
  return {
    scrub_data: s.scrub,
    scrub_defaults: s.scrubDefaults,
    sensitive_fields: s.sensitiveFields,
    safe_fields: s.safeFields,
    scrub_ip_addresses: s.scrubIp,
    filters: {
      localhost: s.filters.localhost,
      browser_extensions: s.filters.browserExtensions,
      legacy_browsers: s.filters.legacyBrowsers,
      web_crawlers: s.filters.webCrawlers,
      error_messages: s.filters.errorMessages,
      releases: s.filters.releases,
      client_ips: s.filters.clientIps,
    },
  }
}

/** The settings after a change (entries trimmed, empty ones dropped); not yet validated. */
export function applyPrivacyPatch(cur: PrivacySettings, p: PrivacyPatchBody): PrivacySettings {
  const clean = (l: string[]) => l.map((e) => e.trim()).filter((e) => e !== '')
  const f = p.filters ?? {}
  return {
    scrub: p.scrub_data ?? cur.scrub,
    scrubDefaults: p.scrub_defaults ?? cur.scrubDefaults,
    sensitiveFields:
      p.sensitive_fields === undefined ? cur.sensitiveFields : clean(p.sensitive_fields),
    safeFields: p.safe_fields === undefined ? cur.safeFields : clean(p.safe_fields),
    scrubIp: p.scrub_ip_addresses ?? cur.scrubIp,
    filters: {
      localhost: f.localhost ?? cur.filters.localhost,
      browserExtensions: f.browser_extensions ?? cur.filters.browserExtensions,
      legacyBrowsers: f.legacy_browsers ?? cur.filters.legacyBrowsers,
      webCrawlers: f.web_crawlers ?? cur.filters.webCrawlers,
      errorMessages:
        f.error_messages === undefined ? cur.filters.errorMessages : clean(f.error_messages),
      releases: f.releases === undefined ? cur.filters.releases : clean(f.releases),
      clientIps: f.client_ips === undefined ? cur.filters.clientIps : clean(f.client_ips),
    },
  }
}

/**
 * Validates and saves a project's new settings: a glob or address that does not parse, or a
 * list over its limit, is a 400 naming the entry and nothing is saved. The store announces the
 * change on the change feed, so every node's ingest cache drops the old settings.
 */
export async function savePrivacy(
  store: Store,
  projectId: number,
  next: PrivacySettings,
  actor: Parameters<typeof recordAudit>[1],
): Promise<void> {
  const problem = settingsProblem(next)
  if (problem !== undefined) throw new ApiError('bad_request', problem.detail)
  await store.setPrivacySettings(projectId, next)
  await recordAudit(store, actor, 'privacy.change', {
    projectId,
    target: `project:${projectId}`,
    details: privacyJson(next),
  })
}

/** `GET` and `PUT /api/0/projects/{id}/privacy/`: data scrubbing and inbound filters. */
export async function privacyRoutes(app: ApiScope, deps: { store: Store }): Promise<void> {
  const { store } = deps
  app.get(
    '/api/0/projects/:projectId/privacy/',
    {
      config: { access: onProject('project:read') },
      schema: {
        summary: "A project's data scrubbing and inbound filter settings",
        params: ProjectParams,
        response: { 200: PrivacyJson, ...errorResponses },
      },
    },
    async (req) => {
      const p = await pathProject(store, req.params.projectId)
      return privacyJson(await store.getPrivacySettings(p.id))
    },
  )
  app.put(
    '/api/0/projects/:projectId/privacy/',
    {
      config: { access: onProject('project:admin') },
      schema: {
        summary: 'Change data scrubbing and inbound filters (fields left out keep their values)',
        params: ProjectParams,
        body: PrivacyPatch,
        response: { 200: PrivacyJson, ...bodyErrorResponses },
      },
    },
    async (req) => {
      const p = await pathProject(store, req.params.projectId)
      const next = applyPrivacyPatch(await store.getPrivacySettings(p.id), req.body)
      await savePrivacy(store, p.id, next, actorOf(req.principal ?? { userId: null }))
      return privacyJson(next)
    },
  )
}
