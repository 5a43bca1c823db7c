import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it). */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** Fails loudly when Chromium is missing (never a skip): call it before costly set-up. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`${CHROMIUM_PATH} is missing: apt-get install -y chromium`)
}

/** Headless Debian Chromium through playwright-core, for the tests that run stock browser SDKs. */
export async function launchChromium(): Promise<Browser> {
  requireChromium()
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu'],
  })
}
