// What the browser drivers share: a loopback static server for the page under test and a
// headless Debian Chromium (playwright-core) with the suite's flags in a throw-away profile.
// Pages are opened as http://localhost:<port>/ while DSNs name 127.0.0.1, so every envelope is
// a cross-origin request, as from a real site.
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'

/** Debian's Chromium (`.ci/run` installs it; playwright's own download cannot run here). */
export const CHROMIUM = '/usr/bin/chromium'

/** The flags every Chromium of the suite runs with (no network beyond loopback, no sync). */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * Serves `files` (path → {type, body, headers?}) on 127.0.0.1 and answers 404 to anything else;
 * returns the page's cross-origin base URL and a close function.
 */
export async function servePage(files) {
  const server = createServer((req, res) => {
    const file = files.get(new URL(req.url ?? '/', 'http://x').pathname)
    if (file === undefined) res.writeHead(404).end()
    else res.writeHead(200, { ...file.headers, 'content-type': file.type }).end(file.body)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { origin: `http://localhost:${server.address().port}`, close: () => server.close() }
}

/** Runs `use(context)` in a fresh headless Chromium profile and always removes it afterwards. */
export async function withChromium(profilePrefix, use) {
  const userDataDir = await mkdtemp(join(tmpdir(), profilePrefix))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
  })
  try {
    return await use(context)
  } finally {
    await context.close()
    await rm(userDataDir, { recursive: true, force: true })
  }
}
