import type { Request as PlaywrightRequest } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { createAgentClient } from '../../../shared/client/index.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { agentText, type Chat, send, startApp, startChat } from '../../support/browser.ts'
import { reply } from '../../support/chat-gateway.ts'

// The chat page's connection to the example server, in Chromium, through
// the Gateway double (a reply streams word by word for ~1.5 s): a reload
// mid-answer, the server down and restarted (on a new log, and mid-turn on
// the same one), an idle tab.
let chat: Chat

beforeAll(async () => {
  chat = await startChat(inject('webRoot'))
})

afterAll(async () => {
  await chat?.close()
})

const poll = { timeout: 15_000, interval: 25 }
/** For the tests that restart the server: a page's token outlives the process. */
const sessionKey = 'a-browser-test-key-of-32-bytes-or-more'

describe('the chat page and its server', () => {
  it('continues the stream after a reload, with no duplicated text', async () => {
    const page = await chat.openSession('reload')
    const answer = reply('survive a reload')
    await send(page, 'survive a reload')
    await expect.poll(async () => (await agentText(page)).length, poll).toBeGreaterThan(20)
    const before = await agentText(page)
    expect(before.length).toBeLessThan(answer.length)

    await page.reload()
    await expect.poll(() => agentText(page), poll).toBe(answer)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await agentText(page)).toBe(answer)
    expect(await page.getByRole('article', { name: 'Agent' }).count()).toBe(1)
    await page.close()
  })

  it('says it is offline while the server is down, with sending held, and drops the old transcript when the restarted server has a new log', async () => {
    // `npm start` on the memory store: a restart starts an empty log.
    // The same key after the restart, so the page's token still opens its session.
    const webRoot = inject('webRoot')
    let server = await startApp(webRoot, chat.gateway, { store: memoryEventStore(), sessionKey })
    const port = Number(new URL(server.url).port)
    const page = await chat.browser.newPage()
    try {
      const session = `new-log-${crypto.randomUUID().slice(0, 6)}`
      await page.goto(
        `${server.url}/?session=${session}#token=${await server.sessionToken(session)}`,
      )
      await send(page, 'before the restart')
      await expect.poll(() => agentText(page), poll).toBe(reply('before the restart'))
      const pill = page.locator('.topbar .pill')
      await expect.poll(() => pill.textContent(), poll).toBe('Ready')

      await server.close()
      await expect.poll(() => pill.textContent(), poll).toBe('Offline: reconnecting…')
      await page.getByRole('textbox', { name: 'Message' }).fill('while it is down')
      expect(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true)
      // Down is not refused: the page waits for it, and offers no way out it does not need.
      expect(await page.locator('.hint').textContent()).toBe(
        'The server cannot be reached: Send is held until it is back, and your message stays here.',
      )
      // Nothing was queued: the message is still the draft.
      expect(await page.getByRole('textbox', { name: 'Message' }).inputValue()).toBe(
        'while it is down',
      )
      expect(await page.getByRole('button', { name: 'Start a new conversation' }).count()).toBe(0)

      server = await startApp(webRoot, chat.gateway, {
        store: memoryEventStore(),
        port,
        sessionKey,
      })
      await expect.poll(() => pill.textContent(), { ...poll, timeout: 20_000 }).toBe('Ready')
      await expect.poll(() => page.getByRole('article').count(), poll).toBe(0)
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await expect.poll(() => agentText(page), poll).toBe(reply('while it is down'))
      expect(await page.getByRole('article', { name: 'You' }).allTextContents()).toEqual([
        expect.stringContaining('while it is down'),
      ])
    } finally {
      await page.close()
      await server.close()
    }
  }, 40_000)

  it('says the link is no longer valid when the restarted server signs with a new key, and starts a new conversation', async () => {
    // `npm start` as it is: a key per process, so a restart ends the page's token.
    const webRoot = inject('webRoot')
    let server = await startApp(webRoot, chat.gateway, { store: memoryEventStore() })
    const port = Number(new URL(server.url).port)
    const page = await chat.browser.newPage()
    try {
      const session = `stale-${crypto.randomUUID().slice(0, 6)}`
      await page.goto(
        `${server.url}/?session=${session}#token=${await server.sessionToken(session)}`,
      )
      const pill = page.locator('.topbar .pill')
      await expect.poll(() => pill.textContent(), poll).toBe('Ready')

      await server.close()
      server = await startApp(webRoot, chat.gateway, { store: memoryEventStore(), port })
      const alert = page.getByRole('alert')
      await alert.getByText("This conversation's link is no longer valid.").waitFor({
        timeout: 20_000,
      })
      expect(await alert.textContent()).toContain('the server restarted')
      expect(await pill.textContent()).toBe('Refused')
      // The server answered: the page does not claim it cannot be reached.
      expect(await page.locator('.hint').textContent()).toBe(
        'This conversation cannot go on from this link: start a new one.',
      )

      await alert.getByRole('button', { name: 'Start a new conversation' }).click()
      await expect
        .poll(() => new URL(page.url()).searchParams.get('session') ?? session, poll)
        .not.toBe(session)
      await expect.poll(() => pill.textContent(), poll).toBe('Ready')
      expect(await page.getByRole('alert').count()).toBe(0)
      await send(page, 'a fresh start')
      await expect.poll(() => agentText(page), poll).toBe(reply('a fresh start'))
    } finally {
      await page.close()
      await server.close()
    }
  }, 40_000)

  it('survives the server restarting mid-turn: the page says Recovering until the turn is taken over, then the answer completes once', async () => {
    // The log outlives the process, as DynamoDB would; the in-memory store stands in.
    // The dead process's claim holds the step for up to 8 s after the restart.
    const webRoot = inject('webRoot')
    const store = memoryEventStore()
    const options = { store, claimTtlMs: 8_000, sessionKey }
    let server = await startApp(webRoot, chat.gateway, options)
    const port = Number(new URL(server.url).port)
    const page = await chat.browser.newPage()
    const session = `restart-${crypto.randomUUID().slice(0, 6)}`
    await page.goto(`${server.url}/?session=${session}#token=${await server.sessionToken(session)}`)
    await page.getByRole('textbox', { name: 'Message' }).waitFor()
    await send(page, 'survive a restart')
    const answer = reply('survive a restart')
    await expect.poll(async () => (await agentText(page)).length > 10, poll).toBe(true)
    await server.close() // the process dies mid-answer
    server = await startApp(webRoot, chat.gateway, { ...options, port })
    const pill = page.locator('.topbar .pill')
    try {
      // Back on the stream, with nothing new: not "Responding" over a frozen answer.
      await expect.poll(() => pill.textContent(), { ...poll, timeout: 20_000 }).toBe('Recovering…')
      expect(await pill.getAttribute('title')).toContain("once the old one's claim lapses")
      await expect.poll(() => agentText(page), { ...poll, timeout: 30_000 }).toBe(answer)
      expect(await page.getByRole('article', { name: 'Agent' }).count()).toBe(1)
      await expect.poll(() => pill.textContent(), poll).toBe('Ready')
    } finally {
      await page.close()
      await server.close()
    }
  }, 60_000)

  it('an idle tab holds no stream, and shows a turn another client started within 10 s', async () => {
    // Streams end after 0.5 s of quiet; the page checks the head every 8 s (its default).
    const server = await startApp(inject('webRoot'), chat.gateway, { stream: { quietMs: 500 } })
    const session = `idle-${crypto.randomUUID().slice(0, 6)}`
    const page = await chat.browser.newPage()
    const requests = new Map<PlaywrightRequest, { head: boolean; at: number; finished?: number }>()
    page.on('request', (request) => {
      if (!request.url().includes('/api/agent')) return
      requests.set(request, {
        head: new URL(request.url()).searchParams.has('head'),
        at: Date.now(),
      })
    })
    // The client aborts a stream it finished reading: Chromium reports that as failed.
    const ended = (request: PlaywrightRequest): void => {
      const entry = requests.get(request)
      if (entry) entry.finished ??= Date.now()
    }
    page.on('requestfinished', ended)
    page.on('requestfailed', ended)
    const token = await server.sessionToken(session)
    const other = createAgentClient({ api: `${server.url}/api/agent`, token })
    try {
      await page.goto(`${server.url}/?session=${session}#token=${token}`)
      await page.getByRole('textbox', { name: 'Message' }).waitFor()
      // The page's stream ended for quiet: it rests.
      await expect
        .poll(() => [...requests.values()].some((r) => !r.head && r.finished), poll)
        .toBe(true)
      const restingSince = Date.now()
      const sentAt = Date.now()
      await other.session(session).sendMessage('Hello from another tab')
      await page
        .getByRole('article', { name: 'You' })
        .filter({ hasText: 'Hello from another tab' })
        .waitFor({ timeout: 10_000 })
      expect(Date.now() - sentAt).toBeLessThan(10_000)
      await expect.poll(() => agentText(page), poll).toBe(reply('Hello from another tab'))
      // While it rested: head checks only, then one stream when the head moved.
      const rested = [...requests.values()].filter((r) => r.at >= restingSince)
      expect(rested[0]?.head).toBe(true)
      expect(rested.some((r) => !r.head)).toBe(true)
    } finally {
      other.dispose()
      await page.close()
      await server.close()
    }
  }, 30_000)
})
