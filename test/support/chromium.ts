import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium } from 'playwright-core'

// Debian's package (apt-get install -y chromium); A2_CHROMIUM points elsewhere.
const CHROMIUM = process.env.A2_CHROMIUM ?? '/usr/bin/chromium'

/** Debian's Chromium, headless, on a fresh profile. */
export async function launchBrowser(): Promise<BrowserContext & { dispose(): Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'a2-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 860 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  return Object.assign(context, {
    async dispose() {
      await context.close()
      await rm(profile, { recursive: true, force: true })
    },
  })
}
