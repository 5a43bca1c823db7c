import { z } from 'zod'
import type { Config } from '../config.ts'
import { ApiError } from '../errors.ts'
import { parseInput } from '../http-kit/validate.ts'
import type { AlertChannel, AlertCondition, AlertRule, Store } from '../store/types.ts'
import { webhookTargetProblem } from './channels/webhook-target.ts'

const Condition = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('new_issue') }),
  z.strictObject({ type: z.literal('regression') }),
  z.strictObject({
    type: z.literal('frequency'),
    /** Fires when the issue is seen more than this many times … */
    threshold: z.number().int().min(1).max(1_000_000_000),
    /** … within this many minutes (at most a week). */
    window_minutes: z.number().int().min(1).max(10_080),
  }),
])

const Channel = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('webhook'),
    url: z.url({ protocol: /^https?$/ }).max(2000),
    /** `json`: the alert object; `slack`: a Slack-compatible incoming-webhook message. */
    format: z.enum(['json', 'slack']).default('json'),
  }),
  z.strictObject({
    type: z.literal('email'),
    to: z.array(z.email()).min(1).max(20),
  }),
])

/** Body of `POST /api/0/projects/{id}/alert-rules/`. */
export const CreateAlertRule = z.strictObject({
  name: z.string().trim().min(1).max(100),
  /** Any of these fires the rule (at most one alert per rule and event). */
  conditions: z
    .array(Condition)
    .min(1)
    .max(3)
    .refine((cs) => new Set(cs.map((c) => c.type)).size === cs.length, {
      message: 'each condition type may appear once',
    }),
  channel: Channel,
})

/** A rule as the API shows it. */
export const ruleJson = (r: AlertRule) => ({
  id: r.id,
  project_id: r.projectId,
  name: r.name,
  conditions: r.conditions.map((c) =>
    c.type === 'frequency'
      ? { type: c.type, threshold: c.threshold, window_minutes: c.windowMinutes }
      : { type: c.type },
  ),
  channel: r.channel,
  created_at: new Date(r.createdAt).toISOString(),
})

/**
 * Validates an API-shaped rule (see `CreateAlertRule`) and creates it. Throws `ApiError`: 404
 * for an unknown project, 400 for bad input or an e-mail rule on a server without SMTP.
 */
export async function createAlertRule(
  deps: { store: Store; config: Pick<Config, 'smtp' | 'protection'> },
  projectId: number,
  input: unknown,
): Promise<AlertRule> {
  if ((await deps.store.getProject(projectId)) === undefined)
    throw new ApiError('not_found', 'no such project')
  const body = parseInput(CreateAlertRule, input, 'alert rule')
  if (body.channel.type === 'email' && deps.config.smtp === undefined) {
    throw new ApiError(
      'bad_request',
      'e-mail alerts need an SMTP server: start the server with SMTP_HOST (and SMTP_PORT, SMTP_FROM) set',
    )
  }
  if (body.channel.type === 'webhook') {
    const problem = await webhookTargetProblem(
      body.channel.url,
      deps.config.protection.allowPrivateWebhooks,
    )
    if (problem !== undefined) throw new ApiError('bad_request', problem)
  }
  const conditions: AlertCondition[] = body.conditions.map((c) =>
    c.type === 'frequency'
      ? { type: c.type, threshold: c.threshold, windowMinutes: c.window_minutes }
      : { type: c.type },
  )
  const channel: AlertChannel = body.channel
  return deps.store.createAlertRule(projectId, { name: body.name, conditions, channel }, Date.now())
}

/** The project's active rules, oldest first (404 for an unknown project). */
export async function listAlertRules(store: Store, projectId: number): Promise<AlertRule[]> {
  if ((await store.getProject(projectId)) === undefined)
    throw new ApiError('not_found', 'no such project')
  return store.listAlertRules(projectId)
}

/** Deletes a rule and cancels its pending deliveries (404 when the project has no such rule). */
export async function deleteAlertRule(
  store: Store,
  projectId: number,
  ruleId: number,
): Promise<void> {
  if (!(await store.deleteAlertRule(projectId, ruleId, Date.now())))
    throw new ApiError('not_found', 'no such alert rule')
}
