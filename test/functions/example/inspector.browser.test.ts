import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { agentText, type Chat, send, startChat } from '../../support/browser.ts'
import { reply } from '../../support/chat-gateway.ts'
import { until } from '../../support/until.ts'

// The developers' inspector panel of the example chat page, in Chromium: a
// slider over the log index, the event there, the state folded up to it. The
// example agent's model ID goes through the Gateway double.
let chat: Chat

beforeAll(async () => {
  chat = await startChat(inject('webRoot'))
})

afterAll(async () => {
  await chat?.close()
})

const poll = { timeout: 15_000, interval: 25 }

describe('the inspector panel', () => {
  it('?inspect opens it: the slider spans the log, and each index shows its event and the state after it', async () => {
    const session = `inspect-${crypto.randomUUID().slice(0, 6)}`
    const page = await chat.browser.newPage()
    await page.goto(
      `${chat.app.url}/?session=${session}&inspect#token=${await chat.app.sessionToken(session)}`,
    )
    const panel = page.getByRole('region', { name: 'Inspector' })
    await panel.waitFor()
    await send(page, 'hello there')
    await expect.poll(() => agentText(page), poll).toBe(reply('hello there'))

    // The text can be whole before the turn's last events are stored: read
    // the head once the turn has ended (its ai.message.completed).
    const stored = await until(async () => {
      const read = (await (
        await fetch(`${chat.app.url}/api/agent?sessionId=${session}&events`, {
          headers: { authorization: `Bearer ${await chat.app.sessionToken(session)}` },
        })
      ).json()) as { head: number; events: { type: string }[] }
      return read.events.at(-1)?.type === 'ai.message.completed' && read
    }, 15_000)
    const slider = panel.getByRole('slider', { name: 'Log index' })
    // It follows the head as events arrive.
    await expect.poll(() => slider.getAttribute('max'), poll).toBe(String(stored.head))
    await expect.poll(() => slider.inputValue(), poll).toBe(String(stored.head))
    const state = panel.getByRole('region', { name: 'State at index' })
    const event = panel.getByRole('region', { name: 'Event at index' })
    await expect.poll(() => state.textContent(), poll).toContain('no active turn · 2 messages')
    expect(await event.textContent()).toContain('ai.message.completed')

    await slider.fill('1')
    await expect.poll(() => event.textContent(), poll).toContain('#1 ai.control.requested')
    expect(await event.textContent()).toContain('message user')
    expect(await event.textContent()).toContain('"hello there"')
    expect(await state.textContent()).toContain('no active turn · 0 messages')
    expect(await panel.getByText('(following)').count()).toBe(0)

    await slider.fill('0')
    await expect.poll(() => event.textContent(), poll).toContain('Index 0: before any event.')

    // Back at the head, it follows again.
    await slider.fill(String(stored.head))
    await expect.poll(() => panel.getByText('(following)').count(), poll).toBe(1)
    await page.close()
  })

  it('is closed without ?inspect, and the Inspect button opens it', async () => {
    const page = await chat.browser.newPage()
    const toggled = `inspect-toggle-${crypto.randomUUID().slice(0, 6)}`
    await page.goto(
      `${chat.app.url}/?session=${toggled}#token=${await chat.app.sessionToken(toggled)}`,
    )
    await page.getByRole('textbox', { name: 'Message' }).waitFor()
    expect(await page.getByRole('region', { name: 'Inspector' }).count()).toBe(0)
    await page.getByRole('button', { name: 'Inspect' }).click()
    await page.getByRole('region', { name: 'Inspector' }).waitFor()
    await page.close()
  })
})
