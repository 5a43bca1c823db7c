import type { FastifyBaseLogger } from 'fastify'
import type { Transporter } from 'nodemailer'
import { smtpTransport } from '../mail/smtp.ts'
import type { Services } from '../services.ts'

/** How long one account mail may take to hand to the SMTP server, ms. */
const SEND_TIMEOUT_MS = 10_000

/**
 * Sends account mails (invitations, password resets) through the SMTP server alert e-mails use.
 * `background` sends without making the request wait, so a reset answers as fast whether or not
 * the address has an account; `idle()` lets tests and shutdown wait for those sends.
 */
export class AccountMailer {
  readonly #transport: Transporter | undefined
  readonly #from: string
  readonly #inFlight = new Set<Promise<void>>()
  readonly #log: FastifyBaseLogger | undefined

  constructor(services: Pick<Services, 'config'>, log?: FastifyBaseLogger) {
    const smtp = services.config.smtp
    this.#transport = smtp === undefined ? undefined : smtpTransport(smtp, SEND_TIMEOUT_MS)
    this.#from = smtp?.from ?? 'ingest@localhost'
    this.#log = log
  }

  /** Whether an SMTP server is configured (`SMTP_HOST`). */
  get configured(): boolean {
    return this.#transport !== undefined
  }

  /** Sends one plain-text mail; throws when SMTP is not configured or the server refuses. */
  async send(to: string, subject: string, text: string): Promise<void> {
    if (this.#transport === undefined) throw new Error('no SMTP server is configured (SMTP_HOST)')
    await this.#transport.sendMail({ from: this.#from, to, subject, text })
  }

  /** Sends without waiting; a failure is logged (the requester must not learn of it). */
  background(to: string, subject: string, text: string): void {
    const p = this.send(to, subject, text).catch((err: unknown) => {
      this.#log?.warn({ err }, 'account mail not sent')
    })
    this.#inFlight.add(p)
    void p.finally(() => this.#inFlight.delete(p))
  }

  /** Resolves once every background send so far has finished. */
  async idle(): Promise<void> {
    await Promise.all([...this.#inFlight])
  }
}

const mailers = new WeakMap<Services, AccountMailer>()

/** The app's one account mailer (made on first use, so no composition root has to wire it). */
export function accountMailer(services: Services, log?: FastifyBaseLogger): AccountMailer {
  let m = mailers.get(services)
  if (m === undefined) {
    m = new AccountMailer(services, log)
    mailers.set(services, m)
  }
  return m
}
