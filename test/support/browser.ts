import type { Page } from 'playwright-core'
import { startLocalServer } from '../../functions/local/local-server.ts'
import type { GatewayDouble } from '../../shared/testing/gateway-double.ts'
import { chatGateway } from './chat-gateway.ts'
import { launchBrowser } from './chromium.ts'

export { launchBrowser } from './chromium.ts'

type AppOptions = Omit<Parameters<typeof startLocalServer>[0] & object, 'webRoot' | 'model'>
export type App = Awaited<ReturnType<typeof startLocalServer>>

/**
 * The example server (agent + chat page) as a user with an AI Gateway key
 * runs it: its model the ID string `openai/gpt-5.6-terra` (or `env.A2_MODEL`),
 * through the real @ai-sdk/gateway provider to `gateway`, which must be
 * installed in this process (what npm start's main does with A2_GATEWAY_URL).
 */
export function startApp(
  webRoot: string,
  gateway: GatewayDouble,
  { env, ...options }: AppOptions = {},
): Promise<App> {
  return startLocalServer({
    webRoot,
    env: { AI_GATEWAY_API_KEY: 'test-gateway-key', A2_GATEWAY_URL: gateway.url, ...env },
    ...options,
  })
}

/** What a browser test file runs on: the chat Gateway double, the example server and Chromium. */
export interface Chat {
  gateway: GatewayDouble
  app: App
  browser: Awaited<ReturnType<typeof launchBrowser>>
  /** A tab on a new session named after `name`, opened by a link that carries its token. */
  openSession(name: string): Promise<Page>
  close(): Promise<void>
}

/** Starts a `Chat`: `chatGateway()` installed, the example server on it, Chromium. */
export async function startChat(webRoot: string): Promise<Chat> {
  const gateway = await chatGateway()
  const uninstall = gateway.install()
  const app = await startApp(webRoot, gateway)
  const browser = await launchBrowser()
  return {
    gateway,
    app,
    browser,
    async openSession(name) {
      const page = await browser.newPage()
      const id = `${name}-${crypto.randomUUID().slice(0, 6)}`
      await page.goto(`${app.url}/?session=${id}#token=${await app.sessionToken(id)}`)
      await page.getByRole('textbox', { name: 'Message' }).waitFor()
      return page
    },
    async close() {
      await browser.dispose()
      await app.close()
      uninstall()
      await gateway.close()
    },
  }
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
