/**
 * Real alert receivers on loopback for tests: an HTTP webhook endpoint and an SMTP server
 * (smtp-server, from the nodemailer authors). Both record what arrived and can be told to fail
 * the next N requests, so retries are exercised against real protocol errors.
 */
import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

/** Polls `fn` until it returns something other than undefined; throws after `timeoutMs`. */
async function until<T>(what: string, fn: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = fn()
    if (v !== undefined) return v
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 10))
  }
}

/** One request the webhook receiver got. */
export interface WebhookRequest {
  path: string
  headers: IncomingHttpHeaders
  body: unknown
  /** The status it was answered with. */
  status: number
}

/** A running webhook receiver. */
export interface WebhookReceiver {
  /** `http://127.0.0.1:<port>/hook` */
  url: string
  /** Every request, failed ones included, in arrival order. */
  requests: WebhookRequest[]
  /** Requests answered 2xx. */
  accepted(): WebhookRequest[]
  /** Answers the next `n` requests with `status` (default 503) instead of 204. */
  failNext(n: number, status?: number): void
  /** Waits until at least `n` requests were accepted; returns them. */
  waitForAccepted(n: number, timeoutMs?: number): Promise<WebhookRequest[]>
  close(): Promise<void>
}

/** Starts a webhook receiver on 127.0.0.1 (any free port). */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: WebhookRequest[] = []
  let failures = 0
  let failStatus = 503
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      let body: unknown = raw
      try {
        body = JSON.parse(raw)
      } catch {
        // kept as text
      }
      const status = failures > 0 ? failStatus : 204
      if (failures > 0) failures--
      requests.push({ path: req.url ?? '', headers: req.headers, body, status })
      res.writeHead(status, { 'content-type': 'text/plain' })
      res.end(status === 204 ? undefined : `receiver told to fail (${status})`)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  const accepted = () => requests.filter((r) => r.status < 300)
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    accepted,
    failNext: (n, status = 503) => {
      failures = n
      failStatus = status
    },
    waitForAccepted: (n, timeoutMs = 5_000) =>
      until(
        `${n} accepted webhook requests`,
        () => {
          const a = accepted()
          return a.length >= n ? a : undefined
        },
        timeoutMs,
      ),
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}

/** One e-mail the SMTP receiver accepted, parsed. */
export interface ReceivedMail {
  /** Envelope sender and recipients (MAIL FROM / RCPT TO). */
  mailFrom: string
  rcptTo: string[]
  subject: string
  text: string
  messageId: string
  headers: Map<string, unknown>
}

/** A running SMTP receiver. */
export interface SmtpReceiver {
  host: string
  port: number
  /** Accepted messages in arrival order. */
  messages: ReceivedMail[]
  /** How many DATA commands were refused so far. */
  refused: number
  /** Refuses the next `n` messages with `code` (default 451, a transient failure). */
  failNext(n: number, code?: number): void
  waitForMessages(n: number, timeoutMs?: number): Promise<ReceivedMail[]>
  close(): Promise<void>
}

/** Starts an SMTP server on 127.0.0.1 without TLS or authentication. */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = []
  let failures = 0
  let failCode = 451
  const state = { refused: 0 }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream).then(
        (mail) => {
          if (failures > 0) {
            failures--
            state.refused++
            const err = Object.assign(new Error('receiver told to fail'), {
              responseCode: failCode,
            })
            callback(err)
            return
          }
          const from = session.envelope.mailFrom
          messages.push({
            mailFrom: from === false ? '' : from.address,
            rcptTo: session.envelope.rcptTo.map((a) => a.address),
            subject: mail.subject ?? '',
            text: mail.text ?? '',
            messageId: mail.messageId ?? '',
            headers: mail.headers,
          })
          callback()
        },
        (err: Error) => callback(err),
      )
    },
  })
  server.listen(0, '127.0.0.1')
  await once(server.server, 'listening')
  const { port } = server.server.address() as AddressInfo
  return {
    host: '127.0.0.1',
    port,
    messages,
    get refused() {
      return state.refused
    },
    failNext: (n, code = 451) => {
      failures = n
      failCode = code
    },
    waitForMessages: (n, timeoutMs = 5_000) =>
      until(`${n} e-mails`, () => (messages.length >= n ? messages : undefined), timeoutMs),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
