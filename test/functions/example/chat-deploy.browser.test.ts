import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { WIRE_PROTOCOL } from '../../../shared/client/index.ts'
import { agentText, type Chat, send, startChat } from '../../support/browser.ts'
import { reply } from '../../support/chat-gateway.ts'

// The chat page across a deploy that changed the wire protocol, in
// Chromium: the server refuses the page's protocol, and the page says it
// is out of date and offers the reload that brings the conversation back.
let chat: Chat

beforeAll(async () => {
  chat = await startChat(inject('webRoot'))
})

afterAll(async () => {
  await chat?.close()
})

const poll = { timeout: 15_000, interval: 25 }

describe('the chat page and a server of another deploy', () => {
  it('says the page is out of date when the server refuses its protocol, holds sending, and a reload brings the conversation back', async () => {
    const page = await chat.openSession('outdated')
    try {
      await send(page, 'before the deploy')
      await expect.poll(() => agentText(page), poll).toBe(reply('before the deploy'))

      // The page now names a protocol the server does not speak (a page of
      // a newer deploy on a server rolled back to this one).
      await page.route('**/api/agent**', (route) =>
        route.continue({
          headers: { ...route.request().headers(), 'a2-protocol': String(WIRE_PROTOCOL + 1) },
        }),
      )
      await send(page, 'after the deploy')
      const alert = page.getByRole('alert')
      await alert.getByText('This page is out of date.').waitFor({ timeout: 15_000 })
      expect(await alert.textContent()).toContain('reload the page')
      expect(await page.locator('.topbar .pill').textContent()).toBe('Out of date')
      expect(await page.locator('.hint').textContent()).toBe(
        'This page is out of date: reload it to go on, and your conversation comes back.',
      )
      expect(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true)

      // The reload loads the page of the server's deploy (here: the same
      // page, no longer rewritten), and the log still holds the conversation.
      await page.unroute('**/api/agent**')
      await alert.getByRole('button', { name: 'Reload the page' }).click()
      await expect.poll(() => agentText(page), poll).toBe(reply('before the deploy'))
      expect(await page.getByRole('alert').count()).toBe(0)
      expect(await page.getByRole('article', { name: 'You' }).allTextContents()).toEqual([
        expect.stringContaining('before the deploy'),
      ])
    } finally {
      await page.close()
    }
  }, 40_000)
})
