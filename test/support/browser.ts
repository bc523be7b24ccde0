import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium, type Page } from 'playwright-core'
import { demoModel } from '../../functions/example/demo-model.ts'
import { startLocalServer } from '../../functions/local-server.ts'

export const CHROMIUM = process.env.A2_CHROMIUM ?? '/usr/bin/chromium'

/** The example server (agent + chat page) with a demo model streaming `wordDelayMs` apart. */
export async function startApp(
  webRoot: string,
  wordDelayMs: number,
  options: Omit<Parameters<typeof startLocalServer>[0] & object, 'webRoot' | 'model'> = {},
) {
  return startLocalServer({ webRoot, model: demoModel({ wordDelayMs }), ...options })
}

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

/** The text of the agent's messages on the page, joined. */
export async function agentText(page: Page): Promise<string> {
  const texts = await page
    .getByRole('article', { name: 'Agent' })
    .locator('.text')
    .allTextContents()
  return texts.join('\n')
}

export async function send(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Message' }).fill(text)
  await page.getByRole('button', { name: 'Send', exact: true }).click()
}

/** What the offline demo model answers to `said`. */
export function demoAnswer(said: string): string {
  return `[offline demo model] You said: "${said}". Set AI_GATEWAY_API_KEY for a real model. Meanwhile try "close ticket T-42" (it asks for your approval) or "remind me in 10 seconds to stretch".`
}
