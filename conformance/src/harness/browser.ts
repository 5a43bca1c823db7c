/**
 * Headless Debian Chromium through playwright-core, for the web UI tests: a fresh profile per
 * browser, the suite's fixed flags (nothing reaches the network beyond loopback) and page
 * screenshots saved as test artefacts under `artifacts/screenshots/`.
 */
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { repoRoot } from './paths.ts'

/** Debian's Chromium (`apt-get install chromium`; `.ci/run` installs it). */
export const CHROMIUM_PATH = '/usr/bin/chromium'

/** Flags of every Chromium the suite starts. */
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

/** Where page screenshots go (gitignored: `artifacts/`). */
export const SCREENSHOT_DIR = join(repoRoot, 'artifacts', 'screenshots')

/** A running browser with its own throw-away profile. */
export interface Browser {
  context: BrowserContext
  /** Closes the browser and deletes its profile. */
  close(): Promise<void>
}

/** Starts Chromium with a fresh `--user-data-dir`; fails loudly when Chromium is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: run \`apt-get install -y chromium\``)
  }
  const profile = await mkdtemp(join(tmpdir(), 'ui-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  })
  return {
    context,
    close: async () => {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  }
}

/** Saves a full-page screenshot as `artifacts/screenshots/<name>.png`; returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true })
  const path = join(SCREENSHOT_DIR, `${name}.png`)
  await page.screenshot({ path, fullPage: true })
  return path
}
