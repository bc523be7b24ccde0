import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { lastUserText } from '../../../shared/testing/model-script.ts'
import { agentText, type Chat, send, startApp, startChat } from '../../support/browser.ts'
import { notFound, reply } from '../../support/chat-gateway.ts'
import { afterTool } from '../../support/example-gateway.ts'

// The example chat page in Debian's Chromium, against the example agent as a
// user with an AI Gateway key runs it: its model the ID string
// `openai/gpt-5.6-terra` through the real @ai-sdk/gateway provider, answered
// by the Gateway double word by word (a reply streams for ~1.5 s). Stop,
// queue and steer are in chat-controls, reloads and restarts in
// chat-connection.
let chat: Chat

beforeAll(async () => {
  chat = await startChat(inject('webRoot'))
})

afterAll(async () => {
  await chat?.close()
})

const poll = { timeout: 15_000, interval: 25 }

describe('the example chat page', () => {
  it('puts a fresh session in the URL and sends a message that streams in', async () => {
    const page = await chat.browser.newPage()
    await page.goto(`${chat.app.url}/`)
    await expect.poll(() => new URL(page.url()).searchParams.get('session'), poll).toBeTruthy()

    await send(page, 'hello there')
    await page.getByRole('article', { name: 'You' }).getByText('hello there').waitFor()
    const answer = reply('hello there')
    // Seen part-way: the reply grows word by word.
    await expect
      .poll(async () => {
        const text = await agentText(page)
        return text.length > 0 && text.length < answer.length && answer.startsWith(text)
      }, poll)
      .toBe(true)
    await expect.poll(() => agentText(page), poll).toBe(answer)
    await expect.poll(() => page.getByRole('status').textContent(), poll).toBe('')
    await page.close()
  })

  it("keeps the link's token and takes it out of the address bar; a session without its token is refused, and a new conversation is offered", async () => {
    const page = await chat.openSession('link')
    expect(new URL(page.url()).hash).toBe('')
    await send(page, 'hello there')
    await expect.poll(() => agentText(page), poll).toBe(reply('hello there'))

    const stranger = await chat.browser.newPage()
    const theirs = `someone-else-${crypto.randomUUID().slice(0, 6)}`
    await stranger.goto(`${chat.app.url}/?session=${theirs}`)
    const alert = stranger.getByRole('alert')
    await alert.getByText("This conversation's link is no longer valid.").waitFor()
    expect(await alert.textContent()).toContain('opened without its token')
    expect(await stranger.locator('.hint').textContent()).not.toContain('cannot be reached')
    await alert.getByRole('button', { name: 'Start a new conversation' }).click()
    await expect
      .poll(() => new URL(stranger.url()).searchParams.get('session') ?? theirs, poll)
      .not.toBe(theirs)
    await send(stranger, 'my own conversation')
    await expect.poll(() => agentText(stranger), poll).toBe(reply('my own conversation'))
    await stranger.close()
    await page.close()
  })

  it('asks before closing a ticket: Allow runs the tool, Deny does not', async () => {
    const page = await chat.openSession('approve')
    await send(page, 'close ticket T-42')
    await page.getByText('The agent wants to: Close a ticket').waitFor()
    await page.getByRole('button', { name: 'Allow' }).click()
    await expect.poll(() => agentText(page), poll).toContain(afterTool(''))
    await expect.poll(() => agentText(page), poll).toContain('"closed":true')
    expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0)
    // The tool's input and result read as fields, not raw JSON.
    const tool = page.locator('.tool').first()
    await expect
      .poll(() => fields(tool.locator('.tool-io').nth(1)), poll)
      .toMatchObject({
        ticketId: 'T-42',
        closed: 'true',
      })
    expect(await fields(tool.locator('.tool-io').first())).toEqual({ ticketId: 'T-42' })
    expect(await tool.textContent()).not.toContain('{')

    await send(page, 'close ticket T-43')
    await page.getByRole('list', { name: 'Approvals' }).getByText('T-43').waitFor()
    await page.getByRole('button', { name: 'Deny' }).click()
    await page.getByText('Denied', { exact: true }).waitFor()
    expect(await page.getByRole('button', { name: 'Deny' }).count()).toBe(0)
    await page.close()
  })

  it("sets a reminder: a second later it arrives as a user message, labelled the reminder's, not the user's, and the agent answers it", async () => {
    const page = await chat.openSession('timer')
    await send(page, 'remind me in 1 second to stretch')
    // setReminder needs no approval: it runs, and the model answers with its result.
    await expect.poll(() => agentText(page), poll).toContain(afterTool(''))
    expect(await agentText(page)).toContain('"scheduled":true,"delaySeconds":1')
    expect(await page.locator('.tool .tool-name').first().textContent()).toBe('setReminder')

    // Nobody typed it: the timer put it in the log, and it starts a turn.
    // The page says who sent it, by the metadata the tool set.
    const reminder = page.getByRole('article', { name: 'Reminder', exact: true })
    await reminder.waitFor({ timeout: 10_000 })
    expect(await reminder.locator('.text').textContent()).toBe('Reminder: stretch')
    // Said in words, not only by the avatar (which screen readers skip).
    expect(await reminder.locator('.tag').textContent()).toBe(
      'Reminder: sent by its timer, not typed',
    )
    await expect.poll(() => agentText(page), poll).toContain(reply('Reminder: stretch'))
    await expect.poll(() => page.getByRole('status').textContent(), poll).toBe('')
    expect(await page.getByRole('article', { name: 'You', exact: true }).allTextContents()).toEqual(
      ['Youremind me in 1 second to stretch'],
    )
    expect(await page.getByRole('article', { name: 'Reminder', exact: true }).count()).toBe(1)
    // To the model it is a user message like any other: the label is the page's.
    expect(chat.gateway.calls.map(lastUserText)).toContain('Reminder: stretch')

    // A second after the tool call it came from, not at once: a timer's delay
    // counts from the event that set it (ai.tool.called), so a retried tool
    // sets the same timer; a busy tools lane may run the tool close to it.
    const events = await eventsOf(page)
    const called = events.find((event) => event.type === 'ai.tool.called')
    const arrived = events.find((event) => event.id.startsWith('reminder:'))
    expect(called && arrived).toBeTruthy()
    expect((arrived?.timestamp ?? 0) - (called?.timestamp ?? Date.now())).toBeGreaterThanOrEqual(
      950,
    )
    await page.close()
  })

  it('keeps two tabs on one session in sync', async () => {
    const first = await chat.openSession('tabs')
    const second = await chat.browser.newPage()
    await second.goto(first.url())
    await second.getByRole('textbox', { name: 'Message' }).waitFor()

    await send(first, 'close ticket T-7')
    // The second tab sees the question and answers it.
    await second.getByRole('button', { name: 'Allow' }).click()
    await expect.poll(() => agentText(first), poll).toContain('"ticketId":"T-7"')
    await expect.poll(() => agentText(second), poll).toContain('"ticketId":"T-7"')
    // Both read again at each poll: the first may still be streaming when
    // the second catches up, and then the other way round.
    await expect
      .poll(async () => {
        const [one, two] = await Promise.all([agentText(first), agentText(second)])
        return one === two
      }, poll)
      .toBe(true)
    expect(await first.getByRole('button', { name: 'Allow' }).count()).toBe(0)
    await first.close()
    await second.close()
  })

  it("renders the agent's markdown as it streams, and a long session ID without widening the page", async () => {
    const page = await chat.openSession(`long-${'x'.repeat(200)}`)
    const header = page.locator('header')
    expect(await header.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(
      true,
    )
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth),
    ).toBe(true)

    await send(page, 'show me some markdown')
    const answer = page.getByRole('article', { name: 'Agent' })
    await answer.locator('pre code').getByText('const answer = 42').waitFor({ timeout: 15_000 })
    expect(await answer.locator('li').allTextContents()).toEqual([
      'a list item with inline code',
      'a second item',
    ])
    expect(await answer.locator('strong').textContent()).toBe('markdown')
    expect(await agentText(page)).not.toContain('**')
    await page.close()
  })

  it('fits a 390 px phone: nothing in the header overlaps, and the session ID shows whole, idle and mid-turn', async () => {
    const page = await chat.browser.newPage()
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${chat.app.url}/`)
    await page.getByRole('textbox', { name: 'Message' }).waitFor()
    const session = new URL(page.url()).searchParams.get('session') ?? ''
    expect(session.length).toBeGreaterThanOrEqual(36) // what POST {} names: a UUID

    await expectHeaderFits(page, session)
    await send(page, 'hello from a phone')
    await page.getByRole('button', { name: 'Stop' }).waitFor()
    await expectHeaderFits(page, session)
    await expect.poll(() => agentText(page), poll).toBe(reply('hello from a phone'))
    await page.close()
  })

  it("shows why a turn failed, and the work the server set aside (dead letters) in a user's words, its detail in the inspector", async () => {
    // A model ID the Gateway has no model for: its 404 is the turn's failure.
    const store = memoryEventStore()
    const modelId = 'openai/gpt-5.6-nowhere'
    const server = await startApp(inject('webRoot'), chat.gateway, {
      env: { A2_MODEL: modelId },
      store,
    })
    const session = `fail-${crypto.randomUUID().slice(0, 6)}`
    const page = await chat.browser.newPage()
    try {
      await page.goto(
        `${server.url}/?session=${session}#token=${await server.sessionToken(session)}`,
      )
      await send(page, 'anyone there?')
      const reason = page.getByRole('article', { name: 'Agent' }).getByRole('alert')
      await expect.poll(() => reason.textContent(), poll).toContain(notFound(modelId))
      await page.getByRole('button', { name: 'Retry' }).waitFor()

      await store.append(session, [
        {
          id: 'dead-letter-1',
          type: 'ai.handler.dead-lettered',
          payload: { lane: 'metadata', key: modelId, error: 'socket hang up', attempts: 5 },
        },
      ])
      const letters = page.locator('.dead-letters')
      await expect
        .poll(() => letters.locator('summary').textContent(), poll)
        .toBe(
          "Problem: Looking up the model's limits failed. The conversation carries on without them.",
        )
      await store.append(session, [
        {
          id: 'dead-letter-2',
          type: 'ai.handler.dead-lettered',
          payload: { lane: 'tools', key: 'call-1', error: 'The CRM timed out', attempts: 5 },
        },
      ])
      await expect
        .poll(() => letters.locator('summary').textContent(), poll)
        .toBe(
          '2 problems, the latest: A tool the agent called could not run. The agent was told it failed.',
        )
      // No lanes, keys or raw errors for the person chatting...
      await letters.locator('summary').click()
      const strip = (await letters.textContent()) ?? ''
      for (const internal of ['lane', 'metadata', 'call-1', 'socket hang up', 'The CRM timed out'])
        expect(strip).not.toContain(internal)
      // ...they are the inspector's.
      await page.getByRole('button', { name: 'Inspect' }).click()
      const detail = page.getByRole('region', { name: 'Inspector' }).getByRole('list', {
        name: 'Dead letters',
      })
      // Each at its log index (#N), as the server recorded it.
      const recorded = async () =>
        (await detail.getByRole('listitem').allTextContents()).map((line) =>
          line.replace(/^#\d+ /, ''),
        )
      await expect
        .poll(recorded, poll)
        .toEqual([
          `metadata lane (${modelId}) after 5 attempts: socket hang up`,
          'tools lane (call-1) after 5 attempts: The CRM timed out',
        ])
    } finally {
      await page.close()
      await server.close()
    }
  })
})

/** The stored events of the session `page` shows, read with its token. */
async function eventsOf(page: Page): Promise<{ id: string; type: string; timestamp: number }[]> {
  const session = new URL(page.url()).searchParams.get('session') ?? ''
  const response = await fetch(`${chat.app.url}/api/agent?sessionId=${session}&events`, {
    headers: { authorization: `Bearer ${await chat.app.sessionToken(session)}` },
  })
  return ((await response.json()) as { events: Awaited<ReturnType<typeof eventsOf>> }).events
}

/**
 * The header's parts (logo, title, session line, each control) lie inside
 * the window, none on another, and the session ID is on screen uncut.
 */
async function expectHeaderFits(page: Page, session: string): Promise<void> {
  const parts = await page.evaluate(() =>
    [
      ...document.querySelectorAll(
        '.topbar .logo, .topbar h1, .topbar .subtitle, .topbar-meta > *',
      ),
    ].map((element) => {
      // Where it paints, text that overflows its box included.
      const range = document.createRange()
      range.selectNodeContents(element)
      const [box, text] = [element.getBoundingClientRect(), range.getBoundingClientRect()]
      return {
        name: element.textContent ?? '',
        left: Math.min(box.left, text.left),
        top: Math.min(box.top, text.top),
        right: Math.max(box.right, text.right),
        bottom: Math.max(box.bottom, text.bottom),
      }
    }),
  )
  expect(parts.length).toBeGreaterThanOrEqual(5)
  const width = page.viewportSize()?.width ?? 0
  for (const part of parts) {
    expect(part.left, part.name).toBeGreaterThanOrEqual(0)
    expect(part.right, part.name).toBeLessThanOrEqual(width)
  }
  for (const [at, a] of parts.entries())
    for (const b of parts.slice(at + 1)) {
      const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top
      expect(apart, `"${a.name}" overlaps "${b.name}"`).toBe(true)
    }
  const id = page.locator('.subtitle code')
  expect(await id.textContent()).toBe(session)
  expect(await id.isVisible()).toBe(true)
  expect(await id.evaluate((code) => code.scrollWidth <= code.clientWidth)).toBe(true)
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(
    true,
  )
}

/** A tool value's fields as shown (`dt` → `dd`). */
async function fields(value: ReturnType<Page['locator']>): Promise<Record<string, string>> {
  const keys = await value.locator('dt').allTextContents()
  const values = await value.locator('dd').allTextContents()
  return Object.fromEntries(keys.map((key, at) => [key, values[at] ?? '']))
}
