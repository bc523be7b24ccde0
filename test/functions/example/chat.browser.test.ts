import type { Page, Request as PlaywrightRequest } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { demoModel } from '../../../functions/example/demo-model.ts'
import { startLocalServer } from '../../../functions/local-server.ts'
import { createAgentClient } from '../../../shared/ai/client/index.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { agentText, demoAnswer, launchBrowser, send, startApp } from '../../support/browser.ts'

// The example chat page in Debian's Chromium, against the example agent with
// the offline demo model (words 60 ms apart: a reply streams for ~2 s).
let app: Awaited<ReturnType<typeof startApp>>
let browser: Awaited<ReturnType<typeof launchBrowser>>

beforeAll(async () => {
  app = await startApp(inject('webRoot'), 60)
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.dispose()
  await app?.close()
})

/** A page on a session the test names, opened by a link that carries its token. */
async function openSession(session: string) {
  const page = await browser.newPage()
  const id = `${session}-${crypto.randomUUID().slice(0, 6)}`
  await page.goto(`${app.url}/?session=${id}#token=${await app.sessionToken(id)}`)
  await page.getByRole('textbox', { name: 'Message' }).waitFor()
  return page
}

const poll = { timeout: 15_000, interval: 25 }
/** For the tests that restart the server: a page's token outlives the process. */
const sessionKey = 'a-browser-test-key-of-32-bytes-or-more'

describe('the example chat page', () => {
  it('puts a fresh session in the URL and sends a message that streams in', async () => {
    const page = await browser.newPage()
    await page.goto(`${app.url}/`)
    await expect.poll(() => new URL(page.url()).searchParams.get('session'), poll).toBeTruthy()

    await send(page, 'hello there')
    await page.getByRole('article', { name: 'You' }).getByText('hello there').waitFor()
    const answer = demoAnswer('hello there')
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

  it("keeps the link's token and takes it out of the address bar; a session without its token is refused", async () => {
    const page = await openSession('link')
    expect(new URL(page.url()).hash).toBe('')
    await send(page, 'hello there')
    await expect.poll(() => agentText(page), poll).toBe(demoAnswer('hello there'))

    const stranger = await browser.newPage()
    await stranger.goto(`${app.url}/?session=someone-else-${crypto.randomUUID().slice(0, 6)}`)
    await stranger
      .getByRole('alert')
      .getByText("The server refused this session's stream")
      .waitFor({ timeout: 15_000 })
    expect(await stranger.getByRole('alert').textContent()).toContain('token')
    await stranger.close()
    await page.close()
  })

  it('asks before closing a ticket: Allow runs the tool, Deny does not', async () => {
    const page = await openSession('approve')
    await send(page, 'close ticket T-42')
    await page.getByText('The agent wants to: Close a ticket').waitFor()
    await page.getByRole('button', { name: 'Allow' }).click()
    await expect.poll(() => agentText(page), poll).toContain('Done. The tool answered:')
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

  it('stops mid-stream and keeps the partial text', async () => {
    const page = await openSession('stop')
    const answer = demoAnswer('tell me a long story')
    await send(page, 'tell me a long story')
    await expect.poll(async () => (await agentText(page)).length, poll).toBeGreaterThan(40)
    await page.getByRole('button', { name: 'Stop' }).click()
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' })

    const kept = await agentText(page)
    expect(kept.length).toBeGreaterThan(20)
    expect(answer.startsWith(kept.trim())).toBe(true)
    expect(kept.trim().length).toBeLessThan(answer.length)
    // Nothing more arrives after the stop.
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(await agentText(page)).toBe(kept)
    // The answer says it was stopped, after a reload too (it is in the log).
    const agentMessage = page.getByRole('article', { name: 'Agent' })
    expect(await agentMessage.getByText('Stopped', { exact: true }).count()).toBe(1)
    await page.reload()
    await agentMessage.getByText('Stopped', { exact: true }).waitFor()
    await page.close()
  })

  it('queues messages sent during a turn and reorders them', async () => {
    const page = await openSession('queue')
    await send(page, 'first')
    await page.getByRole('button', { name: 'Stop' }).waitFor()
    await send(page, 'queued A')
    await send(page, 'queued B')
    const queued = page.getByRole('list', { name: 'Queued messages' }).getByRole('listitem')
    const order = () => queued.locator('.queue-text').allTextContents()
    await expect.poll(order, poll).toEqual(['queued A', 'queued B'])

    await queued.nth(0).getByRole('button', { name: 'Move to end' }).click()
    await expect.poll(order, poll).toEqual(['queued B', 'queued A'])

    // They run in the new order once the turn ends.
    const youTexts = () => page.getByRole('article', { name: 'You' }).allTextContents()
    await expect
      .poll(youTexts, { ...poll, timeout: 30_000 })
      .toEqual([
        expect.stringContaining('first'),
        expect.stringContaining('queued B'),
        expect.stringContaining('queued A'),
      ])
    await page.close()
  })

  it('edits and removes queued messages; pause holds the queue until resume', async () => {
    const page = await openSession('edit')
    await send(page, 'first')
    await page.getByRole('button', { name: 'Stop' }).waitFor()
    await page.getByRole('button', { name: 'Pause after this turn' }).click()
    await page.getByRole('button', { name: 'Resume' }).waitFor()
    await send(page, 'queued A')
    await send(page, 'queued B')
    const queued = page.getByRole('list', { name: 'Queued messages' }).getByRole('listitem')
    const order = () => queued.locator('.queue-text').allTextContents()
    await expect.poll(order, poll).toEqual(['queued A', 'queued B'])

    await queued.nth(0).getByRole('button', { name: 'Edit' }).click()
    await page.getByRole('textbox', { name: 'Edit queued message' }).fill('queued A, edited')
    await page.getByRole('button', { name: 'Save' }).click()
    await expect.poll(order, poll).toEqual(['queued A, edited', 'queued B'])
    await queued.nth(1).getByRole('button', { name: 'Remove' }).click()
    await expect.poll(order, poll).toEqual(['queued A, edited'])

    // The turn ends; paused, the queue waits.
    await expect.poll(() => agentText(page), poll).toBe(demoAnswer('first'))
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await order()).toEqual(['queued A, edited'])

    await page.getByRole('button', { name: 'Resume' }).click()
    await expect.poll(() => agentText(page), poll).toContain(demoAnswer('queued A, edited'))
    await expect.poll(order, poll).toEqual([])
    await page.close()
  })

  it('steers the running turn, and sends a queued message now', async () => {
    const page = await openSession('steer')
    await send(page, 'first')
    await page.getByRole('button', { name: 'Stop' }).waitFor()
    await page.getByRole('textbox', { name: 'Message' }).fill('check billing first')
    // Steer does not look like Send, and the hint says when it takes effect.
    const background = (name: string) =>
      page
        .getByRole('button', { name, exact: true })
        .evaluate((button) => getComputedStyle(button).backgroundColor)
    expect(await background('Steer')).not.toBe(await background('Send'))
    expect(await page.locator('.hint').textContent()).toContain('after the current step')
    await page.getByRole('button', { name: 'Steer' }).click()
    await expect
      .poll(() => agentText(page), { ...poll, timeout: 30_000 })
      .toContain(demoAnswer('check billing first'))

    await send(page, 'second')
    await page.getByRole('button', { name: 'Stop' }).waitFor()
    await send(page, 'urgent')
    const queued = page.getByRole('list', { name: 'Queued messages' }).getByRole('listitem')
    await queued.getByText('urgent').waitFor()
    await queued.getByRole('button', { name: 'Send now' }).click()
    await expect
      .poll(() => agentText(page), { ...poll, timeout: 30_000 })
      .toContain(demoAnswer('urgent'))
    await expect.poll(() => queued.count(), poll).toBe(0)
    await page.close()
  })

  it('continues the stream after a reload, with no duplicated text', async () => {
    const page = await openSession('reload')
    const answer = demoAnswer('survive a reload')
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

  it('keeps two tabs on one session in sync', async () => {
    const first = await openSession('tabs')
    const second = await browser.newPage()
    await second.goto(first.url())
    await second.getByRole('textbox', { name: 'Message' }).waitFor()

    await send(first, 'close ticket T-7')
    // The second tab sees the question and answers it.
    await second.getByRole('button', { name: 'Allow' }).click()
    await expect.poll(() => agentText(first), poll).toContain('"ticketId":"T-7"')
    await expect.poll(() => agentText(second), poll).toContain('"ticketId":"T-7"')
    await expect.poll(() => agentText(second), poll).toBe(await agentText(first))
    expect(await first.getByRole('button', { name: 'Allow' }).count()).toBe(0)
    await first.close()
    await second.close()
  })

  it("renders the agent's markdown as it streams, and a long session ID without widening the page", async () => {
    const page = await openSession(`long-${'x'.repeat(200)}`)
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

  it('shows why a turn failed, and the work the server set aside (dead letters)', async () => {
    const store = memoryEventStore()
    const unreachable = {
      ...demoModel(),
      doStream: () => Promise.reject(new Error('getaddrinfo ENOTFOUND gateway.example')),
    }
    const server = await startLocalServer({ webRoot: inject('webRoot'), model: unreachable, store })
    const session = `fail-${crypto.randomUUID().slice(0, 6)}`
    const page = await browser.newPage()
    try {
      await page.goto(
        `${server.url}/?session=${session}#token=${await server.sessionToken(session)}`,
      )
      await send(page, 'anyone there?')
      const reason = page.getByRole('article', { name: 'Agent' }).getByRole('alert')
      await expect.poll(() => reason.textContent(), poll).toContain('ENOTFOUND gateway.example')
      await page.getByRole('button', { name: 'Retry' }).waitFor()

      await store.append(session, [
        {
          id: 'dead-letter-1',
          type: 'ai.handler.dead-lettered',
          payload: { lane: 'tools', key: 'call-1', error: 'The CRM timed out', attempts: 5 },
        },
      ])
      const letters = page.locator('.dead-letters')
      await expect
        .poll(() => letters.locator('summary').textContent(), poll)
        .toBe('Background work failed tools lane (call-1): The CRM timed out')
    } finally {
      await page.close()
      await server.close()
    }
  })

  it('says it is offline while the server is down, with sending held, and drops the old transcript when the restarted server has a new log', async () => {
    // `npm start` on the memory store: a restart starts an empty log.
    // The same key after the restart, so the page's token still opens its session.
    let server = await startApp(inject('webRoot'), 20, { store: memoryEventStore(), sessionKey })
    const port = Number(new URL(server.url).port)
    const page = await browser.newPage()
    try {
      const session = `new-log-${crypto.randomUUID().slice(0, 6)}`
      await page.goto(
        `${server.url}/?session=${session}#token=${await server.sessionToken(session)}`,
      )
      await send(page, 'before the restart')
      await expect.poll(() => agentText(page), poll).toBe(demoAnswer('before the restart'))
      const pill = page.locator('.topbar .pill')
      await expect.poll(() => pill.textContent(), poll).toBe('Ready')

      await server.close()
      await expect.poll(() => pill.textContent(), poll).toBe('Offline: reconnecting…')
      await page.getByRole('textbox', { name: 'Message' }).fill('while it is down')
      expect(await page.getByRole('button', { name: 'Send', exact: true }).isDisabled()).toBe(true)

      server = await startApp(inject('webRoot'), 20, {
        store: memoryEventStore(),
        port,
        sessionKey,
      })
      await expect.poll(() => pill.textContent(), { ...poll, timeout: 20_000 }).toBe('Ready')
      await expect.poll(() => page.getByRole('article').count(), poll).toBe(0)
      await page.getByRole('button', { name: 'Send', exact: true }).click()
      await expect.poll(() => agentText(page), poll).toBe(demoAnswer('while it is down'))
      expect(await page.getByRole('article', { name: 'You' }).allTextContents()).toEqual([
        expect.stringContaining('while it is down'),
      ])
    } finally {
      await page.close()
      await server.close()
    }
  }, 40_000)

  it('survives the server restarting mid-turn: the page reconnects and the answer completes once', async () => {
    // The log outlives the process, as DynamoDB would; the in-memory store stands in.
    const store = memoryEventStore()
    let server = await startApp(inject('webRoot'), 60, { store, claimTtlMs: 300, sessionKey })
    const port = Number(new URL(server.url).port)
    const page = await browser.newPage()
    const session = `restart-${crypto.randomUUID().slice(0, 6)}`
    await page.goto(`${server.url}/?session=${session}#token=${await server.sessionToken(session)}`)
    await page.getByRole('textbox', { name: 'Message' }).waitFor()
    await send(page, 'survive a restart')
    const answer = demoAnswer('survive a restart')
    await expect.poll(async () => (await agentText(page)).length > 10, poll).toBe(true)
    await server.close() // the process dies mid-answer
    server = await startApp(inject('webRoot'), 60, { store, claimTtlMs: 300, port, sessionKey })
    try {
      await expect.poll(() => agentText(page), { ...poll, timeout: 30_000 }).toBe(answer)
      expect(await page.getByRole('article', { name: 'Agent' }).count()).toBe(1)
    } finally {
      await page.close()
      await server.close()
    }
  }, 60_000)

  it('an idle tab holds no stream, and shows a turn another client started within 10 s', async () => {
    // Streams end after 0.5 s of quiet; the page checks the head every 8 s (its default).
    const server = await startApp(inject('webRoot'), 20, { stream: { quietMs: 500 } })
    const session = `idle-${crypto.randomUUID().slice(0, 6)}`
    const page = await browser.newPage()
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
      await expect.poll(() => agentText(page), poll).toBe(demoAnswer('Hello from another tab'))
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

/** A tool value's fields as shown (`dt` → `dd`). */
async function fields(value: ReturnType<Page['locator']>): Promise<Record<string, string>> {
  const keys = await value.locator('dt').allTextContents()
  const values = await value.locator('dd').allTextContents()
  return Object.fromEntries(keys.map((key, at) => [key, values[at] ?? '']))
}
