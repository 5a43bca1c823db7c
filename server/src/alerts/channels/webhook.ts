import { fetch } from 'undici'
import type { AlertChannel } from '../../store/types.ts'
import { type AlertMessage, facts, summary } from '../message.ts'
import { describeError, SendError } from './send-error.ts'
import { webhookDispatcher, webhookTargetProblem } from './webhook-target.ts'

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
 * (other than 408/425/429) and for a 3xx, retryable for 5xx, timeouts and network errors.
 *
 * The target cannot be turned against the inside: its address is checked before the send and
 * the connection goes to the address that was checked (`webhookDispatcher`'s guarded lookup),
 * and redirects are not followed — a public URL answering `302 Location: http://169.254.169.254/`
 * is a failed delivery, never a request to the metadata service.
 */
export async function sendWebhook(
  channel: WebhookChannel,
  m: AlertMessage,
  deliveryId: number,
  opts: { timeoutMs: number; signal: AbortSignal; allowPrivate: boolean },
): Promise<void> {
  const problem = await webhookTargetProblem(channel.url, opts.allowPrivate)
  if (problem !== undefined) throw new SendError(problem, true)
  let res: Awaited<ReturnType<typeof fetch>>
  try {
    res = await fetch(channel.url, {
      method: 'POST',
      redirect: 'manual',
      dispatcher: webhookDispatcher(opts.allowPrivate),
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
  if (res.status >= 300 && res.status < 400) {
    const location = (res.headers.get('location') ?? '').slice(0, 200)
    throw new SendError(
      `webhook answered HTTP ${res.status} (redirects are not followed${location === '' ? '' : `: ${location}`})`,
      true,
    )
  }
  const detail = `webhook answered HTTP ${res.status}${text === '' ? '' : `: ${text.slice(0, 200)}`}`
  throw new SendError(detail, res.status < 500 && !RETRYABLE_4XX.has(res.status))
}
