import { launchBrowser } from '../../support/chromium.ts'

/** What Chromium showed: the page's paragraphs once the agent answered, and what the page logged as errors. */
export interface Conversation {
  paragraphs: string[]
  errors: string[]
}

/**
 * Opens the page at `origin` in Chromium, as a user does, sends `message`
 * with its form, and waits for `answer` to appear: the page opened a
 * session, streamed it and rendered the agent's reply.
 */
export async function converse(
  origin: string,
  message: string,
  answer: string,
): Promise<Conversation> {
  const browser = await launchBrowser()
  const errors: string[] = []
  try {
    const page = await browser.newPage()
    page.on('pageerror', (error) => errors.push(error.message))
    page.on('console', (entry) => {
      if (entry.type() === 'error') errors.push(entry.text())
    })
    await page.goto(`${origin}/`)
    await page.getByRole('textbox').fill(message)
    await page.getByRole('button', { name: 'Send' }).click()
    const answered = await page
      .getByText(answer)
      .waitFor({ timeout: 30_000 })
      .then(() => true)
      .catch(() => false)
    const paragraphs = await page.locator('main p').allTextContents()
    if (!answered) {
      throw new Error(
        `The page showed no "${answer}" within 30 s: ${JSON.stringify({ paragraphs, errors })}`,
      )
    }
    return { paragraphs, errors }
  } finally {
    await browser.dispose()
  }
}
