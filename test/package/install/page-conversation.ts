import type { Page } from 'playwright-core'
import { launchBrowser } from '../../support/chromium.ts'

/** What Chromium showed: the page's paragraphs once the agent answered, and what the page logged as errors. */
export interface Conversation {
  paragraphs: string[]
  errors: string[]
}

/** One message typed into the page, and the text its answer shows once it has arrived. */
export interface Exchange {
  send: string
  answer: string
}

/**
 * Opens the page at `origin` in Chromium, as a user does, and runs `use` on
 * it; answers what it answers, and what the page logged as errors.
 */
export async function onPage<T>(
  origin: string,
  use: (page: Page) => Promise<T>,
): Promise<{ result: T; errors: string[] }> {
  const browser = await launchBrowser()
  const errors: string[] = []
  try {
    const page = await browser.newPage()
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('console', (entry) => {
      if (entry.type() === 'error') errors.push(entry.text())
    })
    await page.goto(`${origin}/`)
    return { result: await use(page), errors }
  } finally {
    await browser.dispose()
  }
}

/** Types `message` into the page's form and sends it. */
export async function send(page: Page, message: string): Promise<void> {
  await page.getByRole('textbox').fill(message)
  await page.getByRole('button', { name: 'Send' }).click()
}

/**
 * Sends each exchange's message with the page's form and waits for its
 * answer to appear: the page opened a session, streamed it and rendered
 * the agent's reply, one turn after the other.
 */
export async function converse(origin: string, exchanges: Exchange[]): Promise<Conversation> {
  const { result: paragraphs, errors } = await onPage(origin, async (page) => {
    for (const { send: message, answer } of exchanges) {
      // Send is disabled while a turn fails; it stays enabled between turns.
      await send(page, message)
      const answered = await page
        .getByText(answer, { exact: false })
        .waitFor({ timeout: 30_000 })
        .then(() => true)
        .catch(() => false)
      if (!answered) {
        const shown = await page.locator('main p').allTextContents()
        throw new Error(`The page showed no "${answer}" within 30 s: ${JSON.stringify(shown)}`)
      }
    }
    return page.locator('main p').allTextContents()
  })
  return { paragraphs, errors }
}
