import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { lanesToRecover } from '../../../shared/agent/wiring/recovery.ts'
import { handlerContext, inputs } from '../../../shared/ai.ts'
import { type AIState, initialAIState } from '../../../shared/model/state/ai-state.ts'
import type { WakeUp } from '../../../shared/runtime/wake-up.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, track, until, userMessage } from '../../support/agent-log.ts'

/**
 * A process that dies mid-answer on `store`: its model hangs after streaming
 * `partial`, then its timers and workers stop without releasing the claim.
 */
async function crashMidAnswer(name: string, partial: string) {
  const store = memoryEventStore()
  const first = scriptedModel([{ hang: true, parts: text(partial, { chunks: 2 }).slice(0, 4) }])
  const crashed = track(agent({ name, model: first.model, store, claimTtlMs: 150 }))
  await crashed.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
  await until(async () => textOf((await crashed.session('s').state()).state.messages[1]).length > 0)
  crashed.runtime.close()
  return { store, first }
}

describe('durability (embedded)', () => {
  // Issue 37, case 4: an append that commits and answers an error (a
  // timeout after the write) once stranded its decision: nothing was woken,
  // and the turn waited for a reader.
  const requestsAStep = (types: string[]) => types.includes('ai.generation.requested')
  for (const [what, lost] of [
    // The user's message with the controller's decision on it, decided where
    // it is written (decided-push.ts): the first step's request. The log's
    // retry is a replay of the message alone, so the session is recovered.
    [
      "the user's message with the controller's decision",
      (types: string[]) => types[0] === 'ai.control.requested' && requestsAStep(types),
    ],
    // The result of a tool slower than its step: the next step's request comes with it.
    [
      "a tool's result with the decision after it",
      (types: string[]) => types[0] === 'ai.tool.result' && requestsAStep(types),
    ],
  ] as const) {
    it(`answers ${what} that committed and answered a timeout as landed, and wakes its lanes`, async () => {
      const store = memoryEventStore()
      let timedOut = 0
      // The write committed; its answer never came (the SDK's socket timeout).
      const unanswered: typeof store = Object.assign(Object.create(store) as typeof store, {
        async append(...args: Parameters<typeof store.append>) {
          const result = await store.append(...args)
          if (!result.replayed && lost(args[1].map((event) => event.type)) && timedOut === 0) {
            timedOut++
            const error = new Error('Connection timed out after 3000 ms')
            error.name = 'TimeoutError'
            throw error
          }
          return result
        },
      })
      const lookup = tool({
        description: 'Look up an order',
        inputSchema: z.object({ id: z.string() }),
        execute: async ({ id }) => {
          await new Promise((resolve) => setTimeout(resolve, 50))
          return { id, status: 'shipped' }
        },
      })
      const a = track(
        agent({
          name: 'unanswered',
          model: scriptedModel([
            toolCalls({ toolCallId: 'c1', toolName: 'lookup', input: { id: 'o-1' } }),
            text('It shipped.'),
          ]).model,
          store: unanswered,
          tools: { lookup },
          logger: { info() {}, warn() {}, error() {} },
        }),
      )
      await a.session('s').append(...inputs.message(userMessage('m1', 'Where is o-1?')))
      const { state } = await until(async () => {
        const current = await a.session('s').state()
        return current.state.active === null && current.state.messages.length === 2 && current
      }, 5_000)
      expect(timedOut).toBe(1)
      expect(textOf(state.messages[1])).toContain('It shipped.')
      // Written once: the retry found its own events and was answered as a replay.
      const ids = (await store.read('s')).map((event) => event.id)
      expect(new Set(ids).size).toBe(ids.length)
    })
  }

  it('a timer set by a tool fires after the tool returned and produces its message', async () => {
    const setReminder = tool({
      description: 'Set a reminder for yourself',
      inputSchema: z.object({ delaySeconds: z.number(), reminder: z.string() }),
      execute: async ({ delaySeconds, reminder }, { toolCallId }) => {
        const ctx = handlerContext()
        await ctx.session.schedule(
          `reminder:${toolCallId}`,
          { delay: delaySeconds * 1000 },
          ...inputs.message({
            id: `reminder:${ctx.event.id}`,
            role: 'user',
            parts: [{ type: 'text', text: `Reminder: ${reminder}` }],
          }),
        )
        return { scheduled: true, delaySeconds }
      },
    })
    const script = scriptedModel([
      toolCalls({
        toolCallId: 'c1',
        toolName: 'setReminder',
        input: { delaySeconds: 0.2, reminder: 'call Ana' },
      }),
      text('I will remind you.'),
      text('Time to call Ana!'),
    ])
    const a = track(agent({ name: 'reminders', model: script.model, tools: { setReminder } }))
    await a.session('s').append(...inputs.message(userMessage('m1', 'Remind me to call Ana')))
    await a.runtime.idle()
    expect((await a.session('s').state()).state.messages).toHaveLength(2)
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.messages.length === 4 && current.state.active === null && current
    }, 5_000)
    expect(textOf(state.messages[2])).toBe('Reminder: call Ana')
    expect(textOf(state.messages[3])).toBe('Time to call Ana!')
  })

  it('a timer keeps the message ID of a hand-written new input as its event ID, so it fires and is admitted', async () => {
    const a = track(agent({ name: 'reminders', model: scriptedModel([]).model }))
    await a.session('s').schedule(
      'later',
      { delay: 20 },
      {
        type: 'ai.control.requested',
        payload: { action: 'message', generate: false, message: userMessage('m-later', 'Later') },
      },
    )
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.messages.length === 1 && current
    }, 5_000)
    expect(state.messages[0]?.id).toBe('m-later')
    expect((await eventsOf(a, 's'))[0]?.id).toBe('m-later')
  })

  it('a handler killed mid-generation is recovered by a new attempt that supersedes the old one', async () => {
    const { store, first } = await crashMidAnswer('crashy', 'Half an ans')

    const second = scriptedModel([text('A complete answer.')])
    const recovered = track(
      agent({
        name: 'crashy',
        model: second.model,
        store,
        claimTtlMs: 150,
        retry: { baseDelayMs: 50 },
      }),
    )
    await recovered.runtime.wakeAll('s')
    const { state } = await until(async () => {
      const current = await recovered.session('s').state()
      return current.state.active === null && current
    }, 5_000)
    expect(textOf(state.messages[1])).toBe('A complete answer.')
    const events = await eventsOf(recovered, 's')
    const started = events.filter((event) => event.type === 'ai.generation.started')
    expect(started.map((event) => (event.payload as { attempt: number }).attempt)).toEqual([1, 2])
    const superseded = events.findIndex((event) => event.type === 'ai.generation.superseded')
    expect(superseded).toBeGreaterThan(events.indexOf(started[0] as never))
    expect(superseded).toBeLessThan(events.indexOf(started[1] as never))
    // The old attempt's late writes are refused by its fence.
    first.release()
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(textOf((await recovered.session('s').state()).state.messages[1])).toBe(
      'A complete answer.',
    )
  })

  it("a 'report' tool cut short by a crash is reported to the model, not run again", async () => {
    const store = memoryEventStore()
    let shellRuns = 0
    const shell = tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async () => {
        shellRuns++
        await new Promise(() => {}) // the process dies while this runs
      },
    })
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'shell', input: { command: 'rm -rf build' } }),
      text('The command was interrupted.'),
    ])
    const crashed = track(
      agent({
        name: 'shell',
        model: script.model,
        store,
        tools: { shell },
        toolRecovery: { shell: 'report' },
        claimTtlMs: 150,
      }),
    )
    await crashed.session('s').append(...inputs.message(userMessage('m1', 'Clean the build')))
    await until(() => shellRuns === 1)
    crashed.runtime.close()

    const recovered = track(
      agent({
        name: 'shell',
        model: script.model,
        store,
        tools: { shell },
        toolRecovery: { shell: 'report' },
        claimTtlMs: 150,
        retry: { baseDelayMs: 50 },
      }),
    )
    await until(async () => {
      await recovered.runtime.wakeAll('s')
      await recovered.runtime.idle()
      return (await recovered.session('s').state()).state.active === null
    }, 5_000)
    expect(shellRuns).toBe(1)
    const result = (await eventsOf(recovered, 's')).find((event) => event.type === 'ai.tool.result')
    expect(result?.payload).toMatchObject({
      outcome: 'error',
      errorText: expect.stringContaining('interrupted'),
    })
    expect(JSON.stringify(script.calls[1]?.prompt)).toContain('may have partly run')
  })

  it("a 'report' tool whose result write fails (DynamoDB throttling) is reported, not run again", async () => {
    // Found by the simulator (seed 24): the write failed after the command ran,
    // the claim was given back, and the retry ran the command a second time.
    // Throttled twice: the log sends an append whose outcome it cannot tell
    // once more itself, and the second failure is the lane's.
    const inner = memoryEventStore()
    let throttled = 0
    const store = new Proxy(inner, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver)
        if (property !== 'append') return value
        return async (...args: Parameters<typeof inner.append>) => {
          const [, events] = args
          if (throttled < 2 && events.some((event) => event.type === 'ai.tool.result')) {
            throttled++
            throw Object.assign(new Error('Rate of requests exceeds the allowed throughput.'), {
              name: 'ThrottlingException',
            })
          }
          return inner.append(...args)
        }
      },
    })
    let shellRuns = 0
    const shell = tool({
      inputSchema: z.object({ command: z.string() }),
      execute: async () => {
        shellRuns++
        return { exitCode: 0 }
      },
    })
    const a = track(
      agent({
        name: 'shell',
        model: scriptedModel([
          toolCalls({ toolCallId: 'c1', toolName: 'shell', input: { command: 'rm -rf build' } }),
          text('Done.'),
        ]).model,
        store,
        tools: { shell },
        toolRecovery: { shell: 'report' },
        claimTtlMs: 150,
        retry: { baseDelayMs: 50 },
        logger: { info() {}, warn() {}, error() {} },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Clean the build')))
    await until(async () => {
      await a.runtime.idle()
      return (await a.session('s').state()).state.active === null
    }, 5_000)
    expect(throttled).toBe(2)
    expect(shellRuns).toBe(1)
    const result = (await eventsOf(a, 's')).find((event) => event.type === 'ai.tool.result')
    expect(result?.payload).toMatchObject({
      outcome: 'error',
      errorText: expect.stringContaining('interrupted'),
    })
  })

  it('a model step whose run fails (a wake-up it could not send) ends its model call, not leaves it streaming', async () => {
    // Found by the simulator (seed 268): the failed run gave its claim back
    // while the model stream went on in the background, and the retry's
    // model call overlapped it.
    let failSends = false
    const dispatcher = {
      async wake(wakeUps: readonly WakeUp[]) {
        // The tool call's wake-up, sent while the step still streams.
        if (failSends && wakeUps.some((wakeUp) => wakeUp.lane === 'tools')) {
          throw new Error('Could not send 1 wake-up(s): ServiceUnavailable')
        }
      },
    }
    let signal: AbortSignal | undefined
    const script = scriptedModel((options) => {
      signal = options.abortSignal
      return {
        hang: true,
        parts: [
          { type: 'stream-start', warnings: [] },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'lookup', input: '{}' },
        ],
      }
    })
    const a = track(
      agent({
        name: 'hang',
        model: script.model,
        store: memoryEventStore(),
        dispatcher,
        tools: { lookup: tool({ inputSchema: z.object({}), execute: async () => ({}) }) },
        logger: { info() {}, warn() {}, error() {} },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Look it up')))
    await a.runtime.run({ sessionId: 's', lane: 'admission' })
    failSends = true
    await expect(a.runtime.run({ sessionId: 's', lane: 'generation' })).rejects.toThrow(
      'ServiceUnavailable',
    )
    expect(signal?.aborted).toBe(true)
  })

  it('an app event handler runs at least once per event, in order, with its attempt number', async () => {
    const seen: [string, number][] = []
    let failures = 0
    const a = track(
      agent({
        name: 'handlers',
        model: scriptedModel([]).model,
        handlers: {
          'ticket.flagged': async ({ event, attempt }) => {
            const { ticketId } = event.payload as { ticketId: string }
            if (ticketId === 'T-2' && failures++ === 0) throw new Error('transient')
            seen.push([ticketId, attempt])
          },
        },
        retry: { baseDelayMs: 5 },
        logger: { info() {}, warn() {}, error() {} },
      }),
    )
    for (const ticketId of ['T-1', 'T-2', 'T-3']) {
      await a
        .session('s')
        .append({ id: `flag-${ticketId}`, type: 'ticket.flagged', payload: { ticketId } })
    }
    await a.runtime.idle()
    expect(seen).toEqual([
      ['T-1', 1],
      ['T-2', 2],
      ['T-3', 1],
    ])
  })

  it('a handler that keeps failing is dead-lettered and visible in state, not retried forever', async () => {
    let calls = 0
    const a = track(
      agent({
        name: 'poison',
        model: scriptedModel([]).model,
        handlers: {
          'ticket.flagged': async () => {
            calls++
            throw new Error('always broken')
          },
        },
        retry: { baseDelayMs: 2, maxAttempts: 3 },
        logger: { info() {}, warn() {}, error() {} },
      }),
    )
    await a
      .session('s')
      .append({ id: 'flag-1', type: 'ticket.flagged', payload: { ticketId: 'T-1' } })
    await a.runtime.idle()
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(calls).toBe(3)
    const { state } = await a.session('s').state()
    expect(state.deadLetters).toEqual([
      expect.objectContaining({ lane: 'handlers', error: 'always broken', attempts: 3 }),
    ])
  })
})

describe('recovery when a client comes back', () => {
  it('a process restarted on the same store resumes a turn a crash cut short as soon as a client reopens the stream', async () => {
    const { store } = await crashMidAnswer('restart', 'Half an ans')

    const restarted = track(
      agent({
        name: 'restart',
        model: scriptedModel([text('The whole answer.')]).model,
        store,
        claimTtlMs: 150,
        retry: { baseDelayMs: 50 },
      }),
    )
    // Nothing wakes the new process until a browser reconnects.
    const controller = new AbortController()
    const stream = await restarted.fetch(
      new Request('http://a2.test/api/agent?sessionId=s&after=3', { signal: controller.signal }),
    )
    expect(stream.status).toBe(200)
    const { state } = await until(async () => {
      const current = await restarted.session('s').state()
      return current.state.active === null && current
    }, 5_000)
    controller.abort()
    expect(textOf(state.messages[1])).toBe('The whole answer.')
  })
})

describe('a replacement attempt', () => {
  it('does not see the output of the attempt it replaces (retry after a failure, recovery after a crash)', async () => {
    const { store } = await crashMidAnswer('clean', 'PARTIAL-OUTPUT of a dead attempt')

    const second = scriptedModel([text('Fresh answer.')])
    const recovered = track(
      agent({
        name: 'clean',
        model: second.model,
        store,
        claimTtlMs: 150,
        retry: { baseDelayMs: 50 },
      }),
    )
    await recovered.runtime.wakeAll('s')
    await until(async () => (await recovered.session('s').state()).state.active === null, 5_000)
    expect(JSON.stringify(second.calls[0]?.prompt)).not.toContain('PARTIAL')
    expect(textOf((await recovered.session('s').state()).state.messages[1])).toBe('Fresh answer.')
  })
})

/** A reader: opens the session's stream (its GET wakes what it wakes) and leaves. */
async function openStream(
  a: { fetch: (request: Request) => Promise<Response> },
  sessionId: string,
) {
  const controller = new AbortController()
  await a.fetch(
    new Request(`http://a2.test/api/agent?sessionId=${sessionId}`, { signal: controller.signal }),
  )
  controller.abort()
}

describe('what a reader wakes', () => {
  it('wakes nothing for an idle, settled session: a reconnecting tab costs no wake-up', async () => {
    const woken: WakeUp[] = []
    const a = track(
      agent({
        name: 'reader',
        model: scriptedModel([]).model,
        dispatcher: { wake: async (wakeUps: WakeUp[]) => void woken.push(...wakeUps) },
      }),
    )
    const read = () => openStream(a, 's')
    // A session with nothing in it, then one whose passive message was decided.
    await read()
    expect(woken).toEqual([])
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi'), { generate: false }))
    await a.runtime.run({ sessionId: 's', lane: 'admission' })
    expect((await a.session('s').state()).state.messages).toHaveLength(1)
    woken.length = 0
    await read()
    expect(woken).toEqual([])
  })

  it('one admission wake-up that recovers a session that may hold stuck work, then the lanes that hold it', async () => {
    const woken: WakeUp[] = []
    const a = track(
      agent({
        name: 'reader',
        model: scriptedModel([]).model,
        dispatcher: { wake: async (wakeUps: WakeUp[]) => void woken.push(...wakeUps) },
      }),
    )
    // A command nobody decided: the process that wrote it died before it
    // decided or woke anything (the log's own append: no decision, no wake-up).
    await a.runtime.log.session('s').append(inputs.message(userMessage('m1', 'Hi')))
    woken.length = 0
    await openStream(a, 's')
    expect(woken).toEqual([{ sessionId: 's', lane: 'admission', key: 'recover' }])
    woken.length = 0
    await a.runtime.run({ sessionId: 's', lane: 'admission', key: 'recover' })
    // Decided now: the turn's model step is requested, and the active turn's lanes recovered.
    expect(woken.map((wakeUp) => wakeUp.lane).sort()).toEqual(['generation', 'generation', 'tools'])
  })

  it('on durable delivery, recovers only work older than its redelivery: a page that POSTs and then opens its stream wakes admission once', async () => {
    const woken: WakeUp[] = []
    let now = 1_700_000_000_000
    const a = track(
      agent({
        name: 'reader',
        model: scriptedModel([]).model,
        now: () => now,
        store: memoryEventStore({ now: () => now }),
        dispatcher: {
          redeliversWithinMs: 33_000,
          wake: async (wakeUps: WakeUp[]) => void woken.push(...wakeUps),
        },
      }),
    )
    const read = () => openStream(a, 's')
    await a.session('s').append(...inputs.message(userMessage('m1', 'Hi')))
    // The append's own wake-up (its model step: the append carried the
    // decision) is in the dispatcher's hands.
    expect(woken).toMatchObject([{ sessionId: 's', lane: 'generation' }])
    woken.length = 0
    now += 32_000
    await read()
    expect(woken).toEqual([])
    // Older than any redelivery: the wake-up was lost for good (dead-lettered).
    now += 2_000
    await read()
    expect(woken).toEqual([{ sessionId: 's', lane: 'admission', key: 'recover' }])
  })

  it('recovers generation and tools while a turn is active, handlers when the agent has them', () => {
    const idle = initialAIState()
    expect(lanesToRecover(idle, { handlers: false })).toEqual([])
    expect(lanesToRecover(idle, { handlers: true })).toEqual(['handlers'])
    const active = { ...idle, active: {} as AIState['active'] }
    expect(lanesToRecover(active, { handlers: false })).toEqual(['generation', 'tools'])
    const lookingUp = { ...idle, modelMetadata: { m: { status: 'pending' } } } as unknown as AIState
    expect(lanesToRecover(lookingUp, { handlers: false })).toEqual(['metadata'])
    // A lookup that exhausted its retries is not recovered by every reader.
    const gaveUp = {
      ...lookingUp,
      deadLetters: [{ lane: 'metadata', key: 'm', error: 'down', attempts: 5, index: 9 }],
    }
    expect(lanesToRecover(gaveUp, { handlers: false })).toEqual([])
  })
})
