import { setTimeout as sleep } from 'node:timers/promises'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { timerLogOf } from '../../../shared/agent/timers/timer-log.ts'
import { handlerContext, inputs } from '../../../shared/ai.ts'
import {
  type EventStore,
  memoryEventStore,
  type NewEvent,
  type ReadOptions,
} from '../../../shared/index.ts'
import type { Scheduler, Timer } from '../../../shared/runtime/scheduler.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { textOf, track, until, userMessage } from '../../support/agent-log.ts'

const nothing = {
  events: 0,
  heads: 0,
  snapshots: 0,
  cursors: 0,
  claims: 0,
  idGuards: 0,
  timers: 0,
}

describe('session.erase(): an erasure request', () => {
  it('removes the session with a receipt; it then reads as empty, and a new message starts it over', async () => {
    const script = scriptedModel([text('Your order ships Monday.'), text('Hello again.')])
    const a = track(agent({ name: 'eraser', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'My address is 1 Main St')))
    await a.runtime.idle()
    const before = await a.session('s').state()
    expect(before.state.messages).toHaveLength(2)

    const receipt = await a.session('s').erase()
    expect(receipt).toMatchObject({ sessionId: 's', events: before.index, heads: 1 })
    expect(receipt.idGuards).toBeGreaterThan(0)
    // Read through the agent's own state cache, which held the session.
    expect(await a.session('s').state()).toMatchObject({ index: 0, state: { messages: [] } })
    expect(await a.runtime.log.session('s').read()).toEqual([])
    expect(await a.session('s').erase()).toEqual({ sessionId: 's', ...nothing })

    // The same message ID is new again: the old conversation does not come back.
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.messages.map((message) => textOf(message))).toEqual(['Hi', 'Hello again.'])
  })

  it('a session handle bound to a life appends and erases only in it: a command or an erase held past an erase and a start over leaves the new life alone', async () => {
    const script = scriptedModel([text('First.'), text('Second.')])
    const a = track(agent({ name: 'lives', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hello')))
    await a.runtime.idle()
    const { life: first, index } = await a.session('s').state()
    expect(first).toEqual(expect.any(String))
    const held = a.session('s', { life: first as string })
    expect((await held.state()).life).toBe(first)

    expect((await a.session('s').erase()).events).toBe(index)
    await a.session('s').append(...inputs.message(userMessage('m2', 'Starting over')))
    await a.runtime.idle()
    const next = await a.session('s').state()
    expect(next.life).not.toBe(first)

    // A stalled server delivers them now: refused, and nothing of the new life goes.
    const late = await held
      .append(...inputs.message(userMessage('m3', 'Sent before the erase')))
      .catch((error: unknown) => error)
    expect(late).toMatchObject({ code: 'LIFE_ENDED', life: first, currentLife: next.life })
    expect(await held.erase()).toEqual({ sessionId: 's', ...nothing })
    const after = await a.session('s').state()
    expect(after.index).toBe(next.index)
    expect(after.state.messages.map((message) => textOf(message))).toEqual([
      'Starting over',
      'Second.',
    ])
    // Bound to the current life, the same calls work.
    const current = a.session('s', { life: next.life as string })
    expect((await current.erase()).events).toBe(next.index)
  })

  it('refuses while a turn is active (SESSION_ACTIVE), erasing nothing; force erases it and aborts the turn', async () => {
    const script = scriptedModel([
      { hang: true, parts: text('Thinking', { chunks: 2 }).slice(0, 3) },
    ])
    const a = track(agent({ name: 'busy', model: script.model }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Take your time')))
    await until(async () => (await a.session('s').state()).state.active?.phase === 'generating')
    const head = await a.runtime.log.session('s').head()

    const refused = await a
      .session('s')
      .erase()
      .catch((error: unknown) => error)
    expect(refused).toMatchObject({ code: 'SESSION_ACTIVE', sessionId: 's' })
    expect(await a.runtime.log.session('s').head()).toBeGreaterThanOrEqual(head)

    const receipt = await a.session('s').erase({ force: true })
    expect(receipt.events).toBeGreaterThanOrEqual(head)
    expect(receipt.claims).toBeGreaterThan(0)
    await until(() => script.calls[0]?.abortSignal?.aborted)
    await a.runtime.idle()
    // The aborted turn's late writes were fenced out: nothing brought it back.
    expect(await a.runtime.log.session('s').read()).toEqual([])
    expect((await a.session('s').state()).state.active).toBeNull()
  })

  it('is not brought back by the state cache of another process that read it', async () => {
    const store = memoryEventStore()
    const script = scriptedModel([text('First answer.')])
    const first = track(agent({ name: 'p1', model: script.model, store }))
    // Another process over the same store (only reading here, it never runs a turn).
    const other = track(agent({ name: 'p2', model: scriptedModel([]).model, store }))
    await first.session('s').append(...inputs.message(userMessage('m1', 'Old question')))
    await first.runtime.idle()
    expect((await other.session('s').state()).state.messages).toHaveLength(2)

    await first.session('s').erase()
    expect(await other.session('s').state()).toMatchObject({ index: 0, state: { messages: [] } })
  })

  it("folds a log rewritten after an erase from its start, never onto the erased log's state", async () => {
    const store = memoryEventStore()
    const script = scriptedModel([text('Old answer.'), text('New answer.'), text('Newer answer.')])
    const first = track(agent({ name: 'p1', model: script.model, store }))
    const other = track(agent({ name: 'p2', model: scriptedModel([]).model, store }))
    await first.session('s').append(...inputs.message(userMessage('m1', 'Old question')))
    await first.runtime.idle()
    const cached = await other.session('s').state()

    await first.session('s').erase()
    await first.session('s').append(...inputs.message(userMessage('m2', 'New question')))
    await first.runtime.idle()
    await first.session('s').append(...inputs.message(userMessage('m3', 'Newer question')))
    await first.runtime.idle()
    // The new log passes the index the other process cached.
    expect(await store.head('s')).toBeGreaterThan(cached.index)
    const { state } = await other.session('s').state()
    expect(state.messages.map((message) => textOf(message))).toEqual([
      'New question',
      'New answer.',
      'Newer question',
      'Newer answer.',
    ])
  })

  it('cancels the timers the session set, counted in the receipt, so none fires into the erased session and starts it over', async () => {
    // Long enough that the turn which sets it ends first on a loaded machine.
    const delayMs = 2_000
    const remind = tool({
      description: 'Remind the user later',
      inputSchema: z.object({}),
      execute: async () => {
        const ctx = handlerContext()
        await ctx.session.schedule(
          'reminder',
          { delay: delayMs },
          ...inputs.message(userMessage('reminder-1', 'Reminder: your refund')),
        )
        return { scheduled: true }
      },
    })
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'remind', input: {} }),
      text('I will remind you.'),
      text('Here is your reminder.'),
    ])
    const a = track(agent({ name: 'reminders', model: script.model, tools: { remind } }))
    const setAt = Date.now()
    await a.session('s').append(...inputs.message(userMessage('m1', 'Remind me later')))
    await a.runtime.idle()

    const receipt = await a.session('s').erase()
    expect(receipt.timers).toBe(1)
    expect(Date.now() - setAt).toBeLessThan(delayMs) // it was still pending
    await sleep(delayMs - (Date.now() - setAt) + 200)
    await a.runtime.idle()
    expect(await a.runtime.log.session('s').read()).toEqual([])
    expect((await a.session('s').erase()).timers).toBe(0)
  })

  it('drops a timer that could not be cancelled (an SQS delay) when it fires after the erase: nothing is appended, a warning says so', async () => {
    const timers: Timer[] = []
    const warnings: string[] = []
    // On AWS a timer due within 15 minutes is a delayed SQS message: cancel cannot reach it.
    const sqsDelays: Scheduler = {
      schedule: async (timer) => void timers.push(timer),
      cancel: async () => 0,
    }
    const remind = tool({
      description: 'Remind the user later',
      inputSchema: z.object({}),
      execute: async () => {
        await handlerContext().session.schedule(
          'reminder',
          { delay: '5m' },
          ...inputs.message(userMessage('reminder-1', 'Reminder: your refund')),
        )
        return { scheduled: true }
      },
    })
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'remind', input: {} }),
      text('I will remind you.'),
      text('Hello again.'),
    ])
    const a = track(
      agent({
        name: 'late-timers',
        model: script.model,
        tools: { remind },
        scheduler: sqsDelays,
        logger: { ...console, warn: (line: string) => void warnings.push(line) },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Remind me later')))
    await a.runtime.idle()
    // A tool's timer is named within its call: `<ctx.idempotencyKey>/reminder`.
    expect(timers.map((timer) => timer.name)).toEqual([
      expect.stringMatching(/^id-[\w-]+\/reminder$/),
    ])
    const name = timers[0]?.name

    expect((await a.session('s').erase()).timers).toBe(0)
    await a.runtime.fireTimer(timers[0] as Timer)
    await a.runtime.idle()
    expect(await a.runtime.log.session('s').read()).toEqual([])
    expect(await a.runtime.log.session('s').head()).toBe(0)
    expect(warnings).toEqual([
      `a2: timer "${name}" of session s dropped: the session has no log (erased or expired)`,
    ])

    // Nor into the session its user started over since: the timer is the erased log's.
    await a.session('s').append(...inputs.message(userMessage('m2', 'Hello')))
    await a.runtime.idle()
    const restarted = await a.runtime.log.session('s').read()
    await a.runtime.fireTimer(timers[0] as Timer)
    await a.runtime.idle()
    expect(await a.runtime.log.session('s').read()).toEqual(restarted)
    expect(warnings.at(-1)).toBe(
      `a2: timer "${name}" of session s dropped: the session was erased and started over since it was set`,
    )
  })

  it('drops a timer whose session was erased and started over elsewhere: it fires only into the life it was set in', async () => {
    const inner = memoryEventStore()
    const warnings: string[] = []
    const a = track(
      agent({
        name: 'raced',
        model: scriptedModel([]).model,
        store: inner,
        dispatcher: { wake: async () => {} },
        logger: { ...console, warn: (line: string) => warnings.push(line) },
      }),
    )
    await a.session('s').append(...inputs.resume())
    const setIn = await timerLogOf(inner, 's')
    expect(setIn?.life).toBeDefined()
    // Another process erased the session, and the user started it over with
    // the same first event: the same log by its first event, not the same life.
    const [first] = await inner.read('s')
    await inner.erase('s')
    await inner.append('s', [first as NewEvent], { timestamp: first?.timestamp })
    await a.runtime.fireTimer({
      sessionId: 's',
      name: 'reminder',
      events: [{ ...(inputs.resume()[0] as NewEvent), id: 'a2.ai:timer:reminder:0' }],
      ...(setIn ? { setIn } : {}),
    })
    expect((await inner.read('s')).map((event) => event.id)).toEqual([first?.id])
    expect(warnings.join('\n')).toContain('erased and started over since it was set')
  })

  it('drops a timer set before lives whose session is erased between its look at the log and its append', async () => {
    const inner = memoryEventStore()
    let eraseOnLook = false
    // An erase by another process lands right after the timer's look at the log.
    const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
      read: async (sessionId: string, options?: ReadOptions) => {
        const events = await inner.read(sessionId, options)
        if (eraseOnLook && options?.limit === 1) {
          eraseOnLook = false
          await inner.erase(sessionId)
        }
        return events
      },
    })
    const a = track(
      agent({
        name: 'raced',
        model: scriptedModel([]).model,
        store,
        dispatcher: { wake: async () => {} },
        logger: { ...console, warn: () => {} },
      }),
    )
    await a.session('s').append(...inputs.resume())
    const setIn = await timerLogOf(inner, 's')
    eraseOnLook = true
    await a.runtime.fireTimer({
      sessionId: 's',
      name: 'reminder',
      events: [{ ...(inputs.resume()[0] as NewEvent), id: 'a2.ai:timer:reminder:0' }],
      // A schedule from before lives knows the log by its first event only.
      ...(setIn ? { setIn: { firstId: setIn.firstId, firstAt: setIn.firstAt } } : {}),
    })
    expect(setIn).toBeDefined()
    expect(eraseOnLook).toBe(false)
    expect(await inner.read('s')).toEqual([])
  })
})
