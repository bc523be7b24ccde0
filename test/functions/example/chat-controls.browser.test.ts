import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { lastUserText } from '../../../shared/testing/model-script.ts'
import { agentText, type Chat, send, startChat } from '../../support/browser.ts'
import { reply } from '../../support/chat-gateway.ts'
import { THINKING, THOUGHT_OUT } from '../../support/example-gateway.ts'

// The chat page's controls on a running turn, in Chromium, through the
// Gateway double (a reply streams word by word for ~1.5 s): Stop, the queue
// (reorder, edit, remove, pause), Steer and Send now.
let chat: Chat

beforeAll(async () => {
  chat = await startChat(inject('webRoot'))
})

afterAll(async () => {
  await chat?.close()
})

const poll = { timeout: 15_000, interval: 25 }

describe('the chat page while the agent answers', () => {
  it('stops mid-stream and keeps the partial text', async () => {
    const page = await chat.openSession('stop')
    const answer = reply('tell me a long story')
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

  it('stops before the first token: the answer says Stopped, after a reload too', async () => {
    const page = await chat.openSession('stop-early')
    await send(page, 'wait before answering')
    // The model was called and has said nothing yet.
    await expect
      .poll(
        () => chat.gateway.calls.some((call) => lastUserText(call) === 'wait before answering'),
        poll,
      )
      .toBe(true)
    await expect.poll(() => page.getByRole('status').textContent(), poll).toBe('Thinking…')
    await page.getByRole('button', { name: 'Stop' }).click()
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' })

    const agentMessage = page.getByRole('article', { name: 'Agent' })
    await agentMessage.getByText('Stopped', { exact: true }).waitFor()
    expect(await agentText(page)).toBe('')
    await page.reload()
    await agentMessage.getByText('Stopped', { exact: true }).waitFor()
    // It stays with the turn it stopped when the next one answers.
    await send(page, 'are you there?')
    await expect.poll(() => agentText(page), poll).toBe(reply('are you there?'))
    expect(
      await page
        .getByRole('article')
        .evaluateAll((articles) =>
          articles.map(
            (article) =>
              `${article.getAttribute('aria-label')}: ${article.querySelector('.bubble')?.textContent}`,
          ),
        ),
    ).toEqual([
      'You: wait before answering',
      'Agent: Stopped',
      'You: are you there?',
      `Agent: ${reply('are you there?')}`,
    ])
    await page.close()
  })

  it('queues messages sent during a turn and reorders them', async () => {
    const page = await chat.openSession('queue')
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
    const page = await chat.openSession('edit')
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
    await expect.poll(() => agentText(page), poll).toBe(reply('first'))
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' })
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await order()).toEqual(['queued A, edited'])

    await page.getByRole('button', { name: 'Resume' }).click()
    await expect.poll(() => agentText(page), poll).toContain(reply('queued A, edited'))
    await expect.poll(order, poll).toEqual([])
    await page.close()
  })

  it('offers Pause after this turn only while a turn runs, and the hint says messages wait while paused', async () => {
    const page = await chat.openSession('pause-offer')
    const pause = page.getByRole('button', { name: 'Pause after this turn' })
    const resume = page.getByRole('button', { name: 'Resume' })
    const hint = page.locator('.hint')
    // Idle: there is no turn to pause after.
    expect(await pause.count()).toBe(0)
    expect(await hint.textContent()).toBe('Enter to send')

    await send(page, 'first')
    await pause.click()
    await resume.waitFor()
    expect(await hint.textContent()).toBe(
      'Paused after this turn: messages wait until you resume. Stop ends the turn now.',
    )
    await expect.poll(() => agentText(page), poll).toBe(reply('first'))
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' })
    // Paused and idle: Enter still queues a message, and the hint says it waits.
    await expect
      .poll(() => hint.textContent(), poll)
      .toBe('Paused: messages wait until you resume.')
    expect(await pause.count()).toBe(0)
    await send(page, 'while paused')
    const queued = page.getByRole('list', { name: 'Queued messages' }).locator('.queue-text')
    await expect.poll(() => queued.allTextContents(), poll).toEqual(['while paused'])

    await resume.click()
    await expect
      .poll(() => agentText(page), poll)
      .toBe([reply('first'), reply('while paused')].join('\n'))
    await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'detached' })
    await expect.poll(() => hint.textContent(), poll).toBe('Enter to send')
    expect(await pause.count()).toBe(0)
    expect(await resume.count()).toBe(0)
    await page.close()
  })

  it('steers mid-answer: steering goes ahead of the queue in the order sent, the answer finishes, then the model answers the last steer once, the earlier as context', async () => {
    const page = await chat.openSession('steer')
    // The model streams a few words and holds the answer open until released.
    await send(page, 'take your time')
    await expect.poll(() => agentText(page), poll).toBe(THINKING)
    await send(page, 'queued before the steering')
    const box = page.getByRole('textbox', { name: 'Message' })
    await box.fill('check billing first')
    // Steer does not look like Send, and the hint says when it takes effect.
    const background = (name: string) =>
      page
        .getByRole('button', { name, exact: true })
        .evaluate((button) => getComputedStyle(button).backgroundColor)
    expect(await background('Steer')).not.toBe(await background('Send'))
    expect(await page.locator('.hint').textContent()).toContain('after the current step')
    await page.getByRole('button', { name: 'Steer' }).click()
    await box.fill('and the invoices')
    await page.getByRole('button', { name: 'Steer' }).click()
    // "steer() puts new input right after the turn's earlier steering, or first when there is none."
    const order = () =>
      page.getByRole('list', { name: 'Queued messages' }).locator('.queue-text').allTextContents()
    await expect
      .poll(order, poll)
      .toEqual(['check billing first', 'and the invoices', 'queued before the steering'])
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(await agentText(page)).toBe(THINKING)
    chat.gateway.release()

    // The answer streaming at the click finishes; then one answer to both
    // steers; then the queued message has its own turn.
    const first = `${THINKING}${THOUGHT_OUT}`
    const answers = [first, reply('and the invoices'), reply('queued before the steering')]
    await expect.poll(() => agentText(page), poll).toBe(answers.join('\n'))
    await expect.poll(() => page.getByRole('status').textContent(), poll).toBe('')
    expect(await page.getByRole('article', { name: 'You' }).allTextContents()).toEqual([
      'Youtake your time',
      'Youcheck billing first',
      'Youand the invoices',
      'Youqueued before the steering',
    ])
    const steered = chat.gateway.calls.filter((call) =>
      call.messages.some((message) => message.text === 'check billing first'),
    )
    expect(steered.map(lastUserText)).toEqual(['and the invoices', 'queued before the steering'])
    expect(steered[0]?.messages).toEqual([
      { role: 'user', text: 'take your time' },
      { role: 'assistant', text: first },
      { role: 'user', text: 'check billing first' },
      { role: 'user', text: 'and the invoices' },
    ])
    await page.close()
  })

  it('steers past a pending approval: it closes, the tool never runs, and the steered message is answered', async () => {
    const page = await chat.openSession('steer-approval')
    await send(page, 'close ticket T-50')
    await page.getByText('The agent wants to: Close a ticket').waitFor({ timeout: 10_000 })
    await page.getByRole('textbox', { name: 'Message' }).fill('no, keep T-50 open')
    await page.getByRole('button', { name: 'Steer' }).click()

    await expect.poll(() => agentText(page), poll).toBe(reply('no, keep T-50 open'))
    await expect.poll(() => page.getByRole('status').textContent(), poll).toBe('')
    expect(await page.getByRole('list', { name: 'Approvals' }).count()).toBe(0)
    const tool = page.locator('.tool')
    expect(await tool.locator('.tool-state').textContent()).toBe('Denied')
    expect(await tool.locator('.tool-io').count()).toBe(1) // its input; no result
    // The model saw the call closed unanswered, not a closed ticket.
    const call = chat.gateway.calls.find((c) => lastUserText(c) === 'no, keep T-50 open')
    const result = call?.messages.find((message) => message.role === 'tool')?.text
    expect(result).toContain('steering took over the turn before this was answered')
    expect(result).not.toContain('"closed":true')
    await page.close()
  })

  it('sends a queued message now: it runs after the current step, ahead of the queue', async () => {
    const page = await chat.openSession('send-now')
    await send(page, 'second')
    await page.getByRole('button', { name: 'Stop' }).waitFor()
    await send(page, 'later')
    await send(page, 'urgent')
    const queued = page.getByRole('list', { name: 'Queued messages' }).getByRole('listitem')
    await queued.getByText('urgent').waitFor()
    await queued.filter({ hasText: 'urgent' }).getByRole('button', { name: 'Send now' }).click()
    // The answer running at the click finishes; then urgent, then the rest of the queue.
    await expect
      .poll(() => agentText(page), { ...poll, timeout: 30_000 })
      .toBe([reply('second'), reply('urgent'), reply('later')].join('\n'))
    expect(await page.getByRole('article', { name: 'You' }).allTextContents()).toEqual([
      'Yousecond',
      'Youurgent',
      'Youlater',
    ])
    await expect.poll(() => queued.count(), poll).toBe(0)
    await page.close()
  })
})
