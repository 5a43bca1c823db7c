import { issueJson } from '../http-kit/format.ts'
import type { AlertRule, AlertTriggerKind, Issue, Project, StoredEvent } from '../store/types.ts'

/**
 * What an alert says, fixed when its delivery is written down (stored as the delivery's
 * `message`); every channel renders from it. Field names are the webhook's JSON body.
 */
export interface AlertMessage {
  trigger: AlertTriggerKind
  rule: { id: number; name: string }
  project: { id: number; slug: string; name: string }
  issue: ReturnType<typeof issueJson> & { url: string }
  event: {
    id: string
    component: string | null
    environment: string | null
    release: string | null
  } | null
  /** For `frequency`: how often the issue was seen in the window, against the rule's limit. */
  frequency?: { count: number; threshold: number; window_minutes: number }
  triggered_at: string
}

/** Link to an issue in the web UI. */
export function issueUrl(baseUrl: string, issue: Pick<Issue, 'id' | 'projectId'>): string {
  return `${baseUrl.replace(/\/$/, '')}/projects/${issue.projectId}/issues/${issue.id}/`
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null)

/** Builds the message of one alert from what triggered it. */
export function buildMessage(args: {
  trigger: AlertTriggerKind
  rule: AlertRule
  project: Project
  issue: Issue
  event: StoredEvent | undefined
  frequency?: AlertMessage['frequency']
  baseUrl: string
  now: number
}): AlertMessage {
  const { rule, project, issue, event } = args
  let payload: Record<string, unknown> = {}
  if (event !== undefined) {
    try {
      payload = JSON.parse(event.payload) as Record<string, unknown>
    } catch {
      payload = {}
    }
  }
  return {
    trigger: args.trigger,
    rule: { id: rule.id, name: rule.name },
    project: { id: project.id, slug: project.slug, name: project.name },
    issue: { ...issueJson(issue), url: issueUrl(args.baseUrl, issue) },
    event:
      event === undefined
        ? null
        : {
            id: event.eventId,
            component: event.component,
            environment: str(payload['environment']),
            release: str(payload['release']),
          },
    ...(args.frequency !== undefined ? { frequency: args.frequency } : {}),
    triggered_at: new Date(args.now).toISOString(),
  }
}

/** One line saying what happened: the e-mail subject and the chat message's first line. */
export function summary(m: AlertMessage): string {
  const what =
    m.trigger === 'new_issue'
      ? 'New issue'
      : m.trigger === 'regression'
        ? 'Regression'
        : `Seen ${m.frequency?.count ?? 'many'} times in ${m.frequency?.window_minutes ?? '?'} min`
  return `[${m.project.slug}] ${what}: ${m.issue.title}`
}

/** The facts of an alert as label/value pairs, for the e-mail body and the chat message. */
export function facts(m: AlertMessage): [string, string][] {
  const out: [string, string][] = [
    ['Project', m.project.name],
    ['Culprit', m.issue.culprit || '(none)'],
    ['Level', m.issue.level],
    ['Events', String(m.issue.count)],
    ['First seen', m.issue.first_seen],
    ['Last seen', m.issue.last_seen],
  ]
  if (m.event?.component) out.push(['Component', m.event.component])
  if (m.event?.environment) out.push(['Environment', m.event.environment])
  if (m.event?.release) out.push(['Release', m.event.release])
  out.push(['Rule', m.rule.name])
  return out
}
