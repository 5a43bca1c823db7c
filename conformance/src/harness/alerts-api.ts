/**
 * Alert rules, the delivery log, triage and component keys through the management API, for
 * the alert conformance case (kept apart from api.ts, which another area owns).
 */
import { z } from 'zod'
import { AdminClient } from './api.ts'

/** One entry of `GET /api/0/projects/{id}/alert-deliveries/`. */
export const deliverySchema = z.looseObject({
  id: z.number().int(),
  issue_id: z.number().int(),
  trigger: z.string(),
  channel: z.enum(['webhook', 'email']),
  status: z.enum(['pending', 'sent', 'failed']),
  attempts: z.number().int(),
  last_error: z.string().nullable(),
})
/** A delivery-log entry. */
export type Delivery = z.infer<typeof deliverySchema>

/** A key as `POST /api/0/projects/{id}/keys/` returns it. */
export const componentKeySchema = z.looseObject({
  id: z.number().int(),
  label: z.string(),
  component: z.string().nullable(),
  dsn: z.string(),
})

/** The management calls the alert case needs, authenticated with the admin token. */
export class AlertsApi extends AdminClient {
  /** Creates an alert rule (`{name, conditions, channel}`); resolves with its id. */
  async createRule(projectId: number, rule: Record<string, unknown>): Promise<number> {
    const body = await this.request('POST', `/api/0/projects/${projectId}/alert-rules/`, rule)
    return z.looseObject({ id: z.number().int() }).parse(body).id
  }

  /** The project's delivery log, newest first. */
  async deliveries(projectId: number): Promise<Delivery[]> {
    const body = await this.request('GET', `/api/0/projects/${projectId}/alert-deliveries/`)
    return z.array(deliverySchema).parse(body)
  }

  /** Changes an issue's triage state (`{status?, reviewed?, …}`). */
  async updateIssue(issueId: number | string, change: Record<string, unknown>): Promise<void> {
    await this.request('PUT', `/api/0/issues/${issueId}/`, change)
  }

  /** Ids of the project's issues matching a query string such as `?component=worker`. */
  async issueIds(projectId: number, query: string): Promise<number[]> {
    const body = await this.request('GET', `/api/0/projects/${projectId}/issues/${query}`)
    return z
      .array(z.looseObject({ id: z.number().int() }))
      .parse(body)
      .map((i) => i.id)
  }

  /** Mints a component DSN. */
  async createComponentKey(projectId: number, label: string) {
    const body = await this.request('POST', `/api/0/projects/${projectId}/keys/`, { label })
    return componentKeySchema.parse(body)
  }
}
