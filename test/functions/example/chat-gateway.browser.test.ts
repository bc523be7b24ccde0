import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { startLocalServer } from '../../../functions/local/local-server.ts'
import type { GatewayDouble } from '../../../shared/testing/gateway-double.ts'
import { lastUserText } from '../../../shared/testing/model-script.ts'
import { agentText, launchBrowser, send } from '../../support/browser.ts'
import { afterTool, echo, exampleGateway } from '../../support/example-gateway.ts'

// The example chat page in Debian's Chromium, against the example agent as a
// user with an AI Gateway key runs it: its model the ID string
// `openai/gpt-5.6-terra`, resolved by the real @ai-sdk/gateway provider and
// answered by the Gateway double at full speed: sessions that must not hang
// or leak into each other. The other chat files use `chatGateway()`
// (test/support/chat-gateway.ts), slow enough to watch, stop and steer.
let gateway: GatewayDouble
let uninstall: () => void
let app: Awaited<ReturnType<typeof startLocalServer>>
let browser: Awaited<ReturnType<typeof launchBrowser>>

beforeAll(async () => {
  gateway = await exampleGateway()
  // The agent runs in this process: what npm start's main does with A2_GATEWAY_URL.
  uninstall = gateway.install()
  app = await startLocalServer({
    webRoot: inject('webRoot'),
    env: { AI_GATEWAY_API_KEY: 'test-gateway-key', A2_GATEWAY_URL: gateway.url },
  })
  browser = await launchBrowser()
})

afterAll(async () => {
  await browser?.dispose()
  await app?.close()
  uninstall?.()
  await gateway?.close()
})

/** A tab on a new session, opened by a link that carries its token. */
async function openSession(name: string) {
  const page = await browser.newPage()
  const id = `${name}-${crypto.randomUUID().slice(0, 6)}`
  await page.goto(`${app.url}/?session=${id}#token=${await app.sessionToken(id)}`)
  await page.getByRole('textbox', { name: 'Message' }).waitFor()
  return page
}

/** Another tab on the session `page` shows (the page keeps its token). */
async function sameSession(page: Awaited<ReturnType<typeof openSession>>) {
  const tab = await browser.newPage()
  await tab.goto(page.url())
  await tab.getByRole('textbox', { name: 'Message' }).waitFor()
  return tab
}

const poll = { timeout: 10_000, interval: 25 }

describe('the example chat page with a Gateway model ID, through the double', () => {
  it('answers session A in both of its tabs and not in B, then answers B', async () => {
    expect(app.online).toBe(true)
    const a1 = await openSession('a')
    const a2 = await sameSession(a1)
    const b = await openSession('b')

    await send(a1, 'hello from A')
    await expect.poll(() => agentText(a1), poll).toBe(echo('hello from A'))
    await expect.poll(() => agentText(a2), poll).toBe(echo('hello from A'))
    await a2.getByRole('article', { name: 'You' }).getByText('hello from A').waitFor()
    // B is its own session: nothing of A's arrives there.
    expect(await b.getByRole('article').count()).toBe(0)

    // The second session's first turn: it hung here with a Gateway model.
    await send(b, 'hello from B')
    await expect.poll(() => agentText(b), poll).toBe(echo('hello from B'))
    await expect.poll(() => b.getByRole('status').textContent(), poll).toBe('')
    expect(await agentText(a1)).toBe(echo('hello from A'))
    expect(await agentText(a2)).toBe(echo('hello from A'))
    expect(await a1.getByRole('article').count()).toBe(2)
    // One model call per message, with two tabs watching A.
    const asked = gateway.calls.map(lastUserText).filter((said) => said.startsWith('hello from'))
    expect(asked).toEqual(['hello from A', 'hello from B'])
    for (const page of [a1, a2, b]) await page.close()
  })

  it('asks before closing a ticket; Allow runs the tool and the model answers with its result', async () => {
    const page = await openSession('approve')
    await send(page, 'close ticket T-42')
    await page.getByText('The agent wants to: Close a ticket').waitFor({ timeout: 10_000 })
    expect(await page.getByRole('list', { name: 'Approvals' }).textContent()).toContain('T-42')
    await page.getByRole('button', { name: 'Allow' }).click()
    await expect.poll(() => agentText(page), poll).toContain(afterTool(''))
    expect(await agentText(page)).toContain('"ticketId":"T-42","closed":true')
    expect(await page.getByRole('button', { name: 'Allow' }).count()).toBe(0)
    await expect.poll(() => page.getByRole('status').textContent(), poll).toBe('')
    await page.close()
  })

  it('stops a stream the model left hanging, and the next message answers', async () => {
    const page = await openSession('stop')
    await send(page, 'take your time')
    // The model streamed a few words, then nothing: the turn stays busy.
    await expect.poll(() => agentText(page), poll).toBe('Let me think about that')
    await page.getByRole('button', { name: 'Stop' }).click()
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached', timeout: 10_000 })
    const answer = page.getByRole('article', { name: 'Agent' })
    await answer.getByText('Stopped', { exact: true }).waitFor({ timeout: 10_000 })
    expect(await agentText(page)).toBe('Let me think about that')

    await send(page, 'are you there?')
    await expect
      .poll(() => agentText(page), poll)
      .toBe(`Let me think about that\n${echo('are you there?')}`)
    await expect.poll(() => page.getByRole('status').textContent(), poll).toBe('')
    await page.close()
  })
})
