import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { listAlertDeliveries } from '../../alerts/deliveries.ts'
import { createAlertRule, deleteAlertRule, listAlertRules } from '../../alerts/rules.ts'
import { actorOf, recordAudit } from '../../audit/record.ts'
import { createComponentKey, revokeProjectKey } from '../../components/keys.ts'
import { LABEL_RULES, MAX_LABEL_LENGTH } from '../../components/labels.ts'
import { ApiError } from '../../errors.ts'
import { onProject } from '../../http/route-access.ts'
import { keyJson } from '../../http-kit/format.ts'
import { parseInput, pathId } from '../../http-kit/validate.ts'
import type { AlertCondition, AlertRule, Project } from '../../store/types.ts'
import { pageContext, projectParam, type UiDeps, viewerOf } from '../context.ts'
import { count, isoTime, relTime, truncate } from '../format.ts'
import { html, type SafeHtml } from '../html.ts'
import { layout, type PageContext, postForm, projectUrl, sendPage } from '../layout.ts'
import { dsnField } from './projects.ts'

/** Fixed confirmations shown after a redirect (`?done=`), never text from the request. */
const DONE: Record<string, string> = {
  key: 'Component DSN created.',
  revoked: 'Key revoked: events sent with it are refused from now on.',
  quota: 'Quota saved.',
  rule: 'Alert rule created.',
  deleted: 'Alert rule deleted.',
}

const QuotaForm = z.object({
  events: z.string().trim().max(12).default(''),
  window_seconds: z.coerce
    .number()
    .int()
    .min(1)
    .max(31 * 86_400)
    .default(3600),
})

const RuleForm = z.object({
  name: z.string().max(200).default(''),
  new_issue: z.string().optional(),
  regression: z.string().optional(),
  frequency: z.string().optional(),
  threshold: z.string().max(12).default(''),
  window_minutes: z.string().max(12).default(''),
  channel: z.enum(['webhook', 'email']).default('webhook'),
  url: z.string().max(2000).default(''),
  format: z.enum(['json', 'slack']).default('json'),
  to: z.string().max(2000).default(''),
})

/** Turns the rule form into the API-shaped body `createAlertRule` validates. */
export function ruleInput(form: z.infer<typeof RuleForm>): Record<string, unknown> {
  const conditions: Record<string, unknown>[] = []
  if (form.new_issue !== undefined) conditions.push({ type: 'new_issue' })
  if (form.regression !== undefined) conditions.push({ type: 'regression' })
  if (form.frequency !== undefined) {
    conditions.push({
      type: 'frequency',
      threshold: Number(form.threshold),
      window_minutes: Number(form.window_minutes),
    })
  }
  const channel =
    form.channel === 'webhook'
      ? { type: 'webhook', url: form.url.trim(), format: form.format }
      : {
          type: 'email',
          to: form.to
            .split(/[,\s]+/)
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        }
  return { name: form.name, conditions, channel }
}

const conditionText = (c: AlertCondition) =>
  c.type === 'new_issue'
    ? 'new issue'
    : c.type === 'regression'
      ? 'regression'
      : `more than ${count(c.threshold)} events in ${count(c.windowMinutes)} min`

function rulesSection(ctx: PageContext, project: Project, rules: AlertRule[]): SafeHtml {
  const rows = rules.map(
    (
      r,
    ) => html`<tr><td><b>${r.name}</b></td><td class="small">${r.conditions.map(conditionText).join(' · ')}</td>
<td class="small break">${r.channel.type === 'webhook' ? `webhook (${r.channel.format}) ${r.channel.url}` : `e-mail ${r.channel.to.join(', ')}`}</td>
<td>${postForm(ctx, `/projects/${project.id}/settings/rules/${r.id}/delete`, html`<button class="danger" type="submit">Delete</button>`, { className: 'inline', confirm: `Delete the alert rule “${r.name}”?` })}</td></tr>`,
  )
  const form = postForm(
    ctx,
    `/projects/${project.id}/settings/rules`,
    html`<div class="grid2"><div><label for="rule-name">Name</label><input id="rule-name" type="text" name="name" required maxlength="100" placeholder="e.g. Page the on-call">
<label>When</label>
<div><input type="checkbox" id="c-new" name="new_issue" value="1" checked> <label class="inline-label" for="c-new">a new issue appears</label></div>
<div><input type="checkbox" id="c-reg" name="regression" value="1" checked> <label class="inline-label" for="c-reg">a resolved issue regresses</label></div>
<div><input type="checkbox" id="c-freq" name="frequency" value="1"> <label class="inline-label" for="c-freq">an issue is seen more than</label>
<input type="number" name="threshold" min="1" value="100" aria-label="threshold"> times in <input type="number" name="window_minutes" min="1" max="10080" value="60" aria-label="window minutes"> min</div></div>
<div><label>Send to</label>
<div><input type="radio" id="ch-webhook" name="channel" value="webhook" checked> <label class="inline-label" for="ch-webhook">webhook</label>
<input type="url" name="url" placeholder="https://hooks.example.com/…" aria-label="Webhook URL">
<select name="format" aria-label="Webhook format"><option value="json">JSON</option><option value="slack">Slack</option></select></div>
<div><input type="radio" id="ch-email" name="channel" value="email"> <label class="inline-label" for="ch-email">e-mail</label>
<input type="text" name="to" placeholder="ops@example.com, dev@example.com" aria-label="E-mail addresses"></div>
<p><button class="primary" type="submit">Create alert rule</button></p></div></div>`,
  )
  return html`<div class="card"><h2>Alert rules</h2>
<div class="table-wrap"><table><thead><tr><th>Rule</th><th>When</th><th>Sends to</th><th></th></tr></thead>
<tbody>${rows.length === 0 ? html`<tr><td colspan="4" class="empty">No alert rules.</td></tr>` : rows}</tbody></table></div>
<h3>New rule</h3>${form}</div>`
}

/** The settings page: DSN keys (component DSNs), quota, alert rules and their delivery log. */
export async function settingsRoutes(app: FastifyInstance, deps: UiDeps): Promise<void> {
  const { services } = deps
  const { store } = services

  const render = async (
    req: FastifyRequest,
    reply: FastifyReply,
    project: Project,
    flash?: { text: string; error?: boolean },
    status = 200,
  ) => {
    const [ctx, keys, quota, rules, deliveries] = await Promise.all([
      pageContext(deps, req, 'settings', project),
      store.listKeys(project.id),
      store.getQuota(project.id),
      listAlertRules(store, project.id),
      listAlertDeliveries(store, project.id, { limit: '50' }),
    ])
    const keyRows = keys.map((k) => {
      const dsn = keyJson(k, services.baseUrl()).dsn
      return html`<tr><td><b>${k.label}</b><div class="small muted">${k.component === null ? 'default key' : `component: ${k.component}`}</div></td>
<td>${k.revokedAt === null ? dsnField(`key-${k.id}`, dsn) : html`<span class="mono small muted">${dsn}</span>`}</td>
<td class="small nowrap">${isoTime(k.createdAt)}</td>
<td>${k.revokedAt === null ? postForm(ctx, `/projects/${project.id}/settings/keys/${k.id}/revoke`, html`<button class="danger" type="submit">Revoke</button>`, { className: 'inline', confirm: `Revoke “${k.label}”? SDKs using this DSN will be refused.` }) : html`<span class="badge">revoked</span>`}</td></tr>`
    })
    const deliveryRows = deliveries.deliveries.map(
      (
        d,
      ) => html`<tr><td class="small nowrap" title="${isoTime(d.createdAt)}">${relTime(d.createdAt)}</td><td>${d.ruleName}</td><td>${d.triggerKind.replace('_', ' ')}</td>
<td><a href="/issues/${d.issueId}">#${d.issueId}</a></td>
<td class="small break">${d.channel.type === 'webhook' ? d.channel.url : d.channel.to.join(', ')}</td>
<td><span class="badge ${d.status === 'sent' ? 'ok' : d.status === 'failed' ? 'failed' : 'review'}">${d.status}</span></td>
<td class="num">${d.attempts}</td><td class="small break">${d.lastError === null ? '' : truncate(d.lastError, 200)}</td></tr>`,
    )
    const body = html`<h1>${project.name}: settings</h1>
<div class="card"><h2>DSN keys</h2>
<p class="muted">A component DSN is an extra key for one part of the product (a worker, a CLI…): its events land in this project's issues and can be filtered by component.</p>
<div class="table-wrap"><table><thead><tr><th>Key</th><th>DSN</th><th>Created</th><th></th></tr></thead><tbody>${keyRows}</tbody></table></div>
<h3>Mint a component DSN</h3>${postForm(ctx, `/projects/${project.id}/settings/keys`, html`<div class="row"><input type="text" name="label" required maxlength="${MAX_LABEL_LENGTH}" placeholder="component label, e.g. worker" aria-label="Component label" title="${LABEL_RULES}"><button class="primary" type="submit">Create component DSN</button></div><p class="small muted">Label: ${LABEL_RULES}.</p>`)}</div>
<div class="card"><h2>Quota</h2>
<p class="muted">${quota === null ? 'No quota: every event is accepted.' : `At most ${count(quota.events)} events per ${count(quota.windowSeconds)} s; further events are refused with 429 and counted as over quota.`}</p>
${postForm(
  ctx,
  `/projects/${project.id}/settings/quota`,
  html`<div class="row"><label class="inline-label" for="q-events">Events</label><input id="q-events" type="number" name="events" min="0" value="${quota?.events ?? ''}" placeholder="unlimited">
<label class="inline-label" for="q-window">per</label><select id="q-window" name="window_seconds">${[
    [60, 'minute'],
    [3600, 'hour'],
    [86_400, 'day'],
  ].map(
    ([s, l]) =>
      html`<option value="${s}"${quota?.windowSeconds === s ? html` selected` : ''}>${l}</option>`,
  )}${
    quota !== null && ![60, 3600, 86_400].includes(quota.windowSeconds)
      ? html`<option value="${quota.windowSeconds}" selected>${quota.windowSeconds} s</option>`
      : ''
  }</select><button type="submit">Save quota</button><span class="small muted">Leave empty for no quota.</span></div>`,
)}</div>
${rulesSection(ctx, project, rules)}
<div class="card"><h2>Alert deliveries</h2>
<div class="table-wrap"><table><thead><tr><th>When</th><th>Rule</th><th>Trigger</th><th>Issue</th><th>To</th><th>Status</th><th class="num">Tries</th><th>Last error</th></tr></thead>
<tbody>${deliveryRows.length === 0 ? html`<tr><td colspan="8" class="empty">No alerts sent yet.</td></tr>` : deliveryRows}</tbody></table></div></div>`
    return sendPage(reply, layout(ctx, `${project.name} settings`, body, flash), status)
  }

  /** Runs a change; a 4xx ApiError re-renders the page with the message instead of leaving it. */
  const change = async (
    req: FastifyRequest,
    reply: FastifyReply,
    project: Project,
    done: keyof typeof DONE,
    fn: () => Promise<unknown>,
  ) => {
    try {
      await fn()
    } catch (err) {
      // Bad input, or a label already in use (409): the form again, saying why.
      if (err instanceof ApiError && (err.status === 400 || err.status === 409)) {
        return render(req, reply, project, { text: err.message, error: true }, err.status)
      }
      throw err
    }
    return reply.redirect(`${projectUrl(project.id, 'settings')}?done=${done}`, 303)
  }

  app.get(
    '/projects/:projectId/settings',
    { config: { access: onProject('project:admin') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const done = DONE[String((req.query as Record<string, unknown>)['done'])]
      return render(req, reply, project, done === undefined ? undefined : { text: done })
    },
  )

  app.post(
    '/projects/:projectId/settings/keys',
    { config: { access: onProject('project:admin') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      const label = (req.body as Record<string, unknown> | undefined)?.['label']
      return change(req, reply, project, 'key', async () => {
        const key = await createComponentKey(
          services,
          project.id,
          typeof label === 'string' ? label.trim() : label,
        )
        await recordAudit(store, actorOf(viewerOf(req)), 'key.create', {
          projectId: project.id,
          target: `key:${key.id}`,
          details: { label: key.label },
        })
      })
    },
  )

  app.post(
    '/projects/:projectId/settings/keys/:keyId/revoke',
    { config: { access: onProject('project:admin') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      return change(req, reply, project, 'revoked', () =>
        revokeProjectKey(services, project.id, pathId(req.params, 'keyId'), actorOf(viewerOf(req))),
      )
    },
  )

  app.post(
    '/projects/:projectId/settings/quota',
    { config: { access: onProject('project:admin') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      return change(req, reply, project, 'quota', async () => {
        const form = parseInput(QuotaForm, req.body, 'quota')
        let quota = null
        if (form.events !== '') {
          const events = Number(form.events)
          if (!Number.isInteger(events) || events < 0 || events > 1_000_000_000)
            throw new ApiError(
              'bad_request',
              'events must be a whole number from 0 to 1,000,000,000',
            )
          quota = { events, windowSeconds: form.window_seconds }
        }
        await store.setQuota(project.id, quota)
        services.quota.set(project.id, quota)
        await recordAudit(store, actorOf(viewerOf(req)), 'quota.change', {
          projectId: project.id,
          target: `project:${project.id}`,
          details: {
            quota:
              quota === null ? null : { events: quota.events, window_seconds: quota.windowSeconds },
          },
        })
      })
    },
  )

  app.post(
    '/projects/:projectId/settings/rules',
    { config: { access: onProject('project:admin') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      return change(req, reply, project, 'rule', async () => {
        const form = parseInput(RuleForm, req.body, 'alert rule')
        const rule = await createAlertRule(services, project.id, ruleInput(form))
        await recordAudit(store, actorOf(viewerOf(req)), 'alert_rule.create', {
          projectId: project.id,
          target: `alert_rule:${rule.id}`,
          details: { name: rule.name },
        })
      })
    },
  )

  app.post(
    '/projects/:projectId/settings/rules/:ruleId/delete',
    { config: { access: onProject('project:admin') } },
    async (req, reply) => {
      const project = await projectParam(deps, req.params)
      return change(req, reply, project, 'deleted', async () => {
        const ruleId = pathId(req.params, 'ruleId')
        await deleteAlertRule(store, project.id, ruleId)
        await recordAudit(store, actorOf(viewerOf(req)), 'alert_rule.delete', {
          projectId: project.id,
          target: `alert_rule:${ruleId}`,
        })
      })
    },
  )
}
