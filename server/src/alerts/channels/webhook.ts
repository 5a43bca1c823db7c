import type { AlertChannel } from '../../store/types.ts'
import { type AlertMessage, facts, summary } from '../message.ts'
import { describeError, SendError } from './send-error.ts'
import { webhookTargetProblem } from './webhook-target.ts'

type WebhookChannel = Extract<AlertChannel, { type: 'webhook' }>

/** Escapes text for Slack's mrkdwn (only `&`, `<` and `>` are special). */
const slackEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')

/**
 * The body a webhook receives. `json`: the alert message plus `delivery_id` and a one-line
 * `text`. `slack`: an incoming-webhook message (`text` fallback and Block Kit sections), which
 * Slack, Mattermost, Rocket.Chat and Discord's `/slack` endpoint accept.
 */
export function webhookBody(
  format: WebhookChannel['format'],
  m: AlertMessage,
  deliveryId: number,
): Record<string, unknown> {
  const text = summary(m)
  if (format === 'json') return { ...m, delivery_id: deliveryId, text }
  return {
    text,
    blocks: [
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `*<${m.issue.url}|${slackEscape(text)}>*` },
      },
      {
        type: 'section',
        fields: facts(m)
          .slice(0, 10)
          .map(([k, v]) => ({ type: 'mrkdwn', text: `*${k}*\n${slackEscape(v)}` })),
      },
    ],
  }
}

/** Statuses worth retrying although they are 4xx. */
const RETRYABLE_4XX = new Set([408, 425, 429])

/**
 * POSTs the alert to the webhook. Resolves on a 2xx; throws `SendError`, permanent for a 4xx
 * (other than 408/425/429), retryable for 5xx, timeouts and network errors.
 */
export async function sendWebhook(
  channel: WebhookChannel,
  m: AlertMessage,
  deliveryId: number,
  opts: { timeoutMs: number; signal: AbortSignal; allowPrivate: boolean },
): Promise<void> {
  const problem = await webhookTargetProblem(channel.url, opts.allowPrivate)
  if (problem !== undefined) throw new SendError(problem, true)
  let res: Response
  try {
    res = await fetch(channel.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'ingest-alerts/1',
        // Receivers can drop a repeat: a retry after a lost answer carries the same id.
        'x-ingest-delivery': String(deliveryId),
      },
      body: JSON.stringify(webhookBody(channel.format, m, deliveryId)),
      signal: AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]),
    })
  } catch (err) {
    if (opts.signal.aborted) throw err
    throw new SendError(`webhook unreachable: ${describeError(err)}`, false)
  }
  const text = await res.text().catch(() => '')
  if (res.ok) return
  const detail = `webhook answered HTTP ${res.status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`
  throw new SendError(detail, res.status < 500 && !RETRYABLE_4XX.has(res.status))
}
