import type { Transporter } from 'nodemailer'
import type { SmtpConfig } from '../../config.ts'
import { smtpTransport } from '../../mail/smtp.ts'
import type { AlertChannel } from '../../store/types.ts'
import { type AlertMessage, facts, summary } from '../message.ts'
import { describeError, SendError } from './send-error.ts'

type EmailChannel = Extract<AlertChannel, { type: 'email' }>

/** Subject and plain-text body of an alert e-mail. */
export function emailContent(m: AlertMessage): { subject: string; text: string } {
  const width = Math.max(...facts(m).map(([k]) => k.length))
  const lines = facts(m).map(([k, v]) => `${`${k}:`.padEnd(width + 2)}${v}`)
  return {
    subject: summary(m),
    text: `${m.issue.title}\n\n${lines.join('\n')}\n\n${m.issue.url}\n`,
  }
}

/**
 * Sends alert e-mails through the configured SMTP server (one pooled-less transport, opened per
 * message). SMTP 5xx answers are permanent failures; 4xx, timeouts and network errors retry.
 */
export class EmailSender {
  private readonly smtp: SmtpConfig | undefined
  private readonly transport: Transporter | undefined

  constructor(smtp: SmtpConfig | undefined, timeoutMs: number) {
    this.smtp = smtp
    this.transport = smtp === undefined ? undefined : smtpTransport(smtp, timeoutMs)
  }

  /** Sends one alert to the channel's addresses; `deliveryId` makes the Message-ID stable. */
  async send(channel: EmailChannel, m: AlertMessage, deliveryId: number): Promise<void> {
    if (this.smtp === undefined || this.transport === undefined)
      throw new SendError('e-mail alerts need an SMTP server: set SMTP_HOST', true)
    const { subject, text } = emailContent(m)
    const domain = this.smtp.from.split('@')[1] ?? 'localhost'
    try {
      await this.transport.sendMail({
        from: this.smtp.from,
        to: channel.to,
        subject,
        text,
        messageId: `<alert-${deliveryId}@${domain}>`,
        headers: { 'x-ingest-delivery': String(deliveryId) },
      })
    } catch (err) {
      const code = (err as { responseCode?: unknown }).responseCode
      const permanent = typeof code === 'number' && code >= 500 && code < 600
      throw new SendError(`smtp: ${describeError(err)}`, permanent)
    }
  }

  /** Closes the transport's connections. */
  close(): void {
    this.transport?.close()
  }
}
