import { buildApp } from './app.ts'
import { bootstrap } from './bootstrap.ts'
import { loadConfig } from './config.ts'
import { drainAndClose } from './http/shutdown.ts'
import { keyJson } from './http-kit/format.ts'

/**
 * Process entry: reads the environment once, builds the app, listens, prints the ready line
 * (`{"msg":"listening","url":…}`, which the test harness waits for) and closes cleanly on
 * SIGTERM (after a drain, http/shutdown.ts) or SIGINT, so the last group commit is flushed.
 */
async function main(): Promise<void> {
  const config = loadConfig(process.env)
  const app = await buildApp(config)
  // Start-up work before listening: the first request already sees the default project.
  const report = await bootstrap(app.services.store, config)
  await app.listen({ host: config.host, port: config.port })
  const addr = app.server.address()
  const port = typeof addr === 'object' && addr !== null ? addr.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`
  app.services.setBaseUrl(url)
  const defaultDsn =
    report.defaultKey === undefined ? '' : keyJson(report.defaultKey, app.services.baseUrl()).dsn
  const out = (line: string) => process.stdout.write(`${line}\n`)
  out(`Web UI:       ${url}/`)
  out(
    `Admin login:  ${report.adminEmail}${report.generatedPassword !== undefined ? ` / ${report.generatedPassword} (generated, shown once)` : ''}`,
  )
  out(`Default DSN:  ${defaultDsn}`)
  out(JSON.stringify({ msg: 'listening', url }))
  let closing = false
  // SIGTERM (a load balancer's or orchestrator's stop) drains first; SIGINT (Ctrl-C) does not.
  const close = (signal: string) => {
    if (closing) return
    closing = true
    app.log.info({ signal }, 'shutting down')
    void drainAndClose(app, config.shutdown, { drain: signal === 'SIGTERM' }).then((code) =>
      process.exit(code),
    )
  }
  process.on('SIGTERM', () => close('SIGTERM'))
  process.on('SIGINT', () => close('SIGINT'))
}

main().catch((err: unknown) => {
  process.stderr.write(
    `fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  )
  process.exit(1)
})
