import { createTransport, type Transporter } from 'nodemailer'
import type { SmtpConfig } from '../config.ts'

/**
 * A nodemailer transport for the configured SMTP server (`SMTP_*`), one connection per message.
 * Shared by alert e-mails and account mails (invitations, password resets), so both honour the
 * same settings and timeouts.
 */
export function smtpTransport(smtp: SmtpConfig, timeoutMs: number): Transporter {
  return createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    ...(smtp.user !== undefined ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  })
}
