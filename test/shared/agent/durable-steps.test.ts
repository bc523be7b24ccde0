import { randomBytes } from 'node:crypto'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { handlerContext, inputs } from '../../../shared/ai.ts'
import type { NewEvent } from '../../../shared/log/event.ts'
import type { EventStore } from '../../../shared/log/event-store.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, track, until, userMessage } from '../../support/agent-log.ts'

const quiet = { info() {}, warn() {}, error() {} }

/**
 * A memory store whose first appends matching `fails` throw without
 * writing, the log's own second try included (it sends an append that
 * failed for no reason of its own once more).
 */
function failingOnce(fails: (event: NewEvent) => boolean): EventStore {
  const store = memoryEventStore()
  let failures = 0
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'append') return Reflect.get(target, property, receiver)
      const append: EventStore['append'] = async (sessionId, events, options) => {
        if (failures < 2 && events.some(fails)) {
          failures++
          throw new Error('store unavailable')
        }
        return target.append(sessionId, events, options)
      }
      return append
    },
  })
}

const isStep = (name: string) => (event: NewEvent) =>
  event.type === 'ai.step.completed' && (event.payload as { name?: string }).name === name

async function answered(a: Parameters<typeof eventsOf>[0]): Promise<void> {
  await until(async () =>
    (await eventsOf(a, 's')).some((event) => event.type === 'ai.message.completed'),
  )
  await a.runtime.idle()
}

describe('durable steps inside a tool (ctx.step)', () => {
  it('Given a tool whose "charge" step finished and whose "receipt" step could not be recorded, When A2 retries the call, Then it skips "charge" and only redoes "receipt": "a retried tool skips the steps it already finished"', async () => {
    const effects: string[] = []
    const checkout = tool({
      inputSchema: z.object({ amount: z.number() }),
      execute: async ({ amount }) => {
        const ctx = handlerContext()
        const charge = await ctx.step('charge', () => {
          effects.push(`charge ${amount} (attempt ${ctx.attempt})`)
          return { chargeId: `ch_${ctx.attempt}` }
        })
        const receipt = await ctx.step('receipt', () => {
          effects.push(`receipt for ${charge.chargeId} (attempt ${ctx.attempt})`)
          return `sent:${charge.chargeId}`
        })
        return { ...charge, receipt }
      },
    })
    const a = track(
      agent({
        name: 'shop',
        model: scriptedModel([
          toolCalls({ toolCallId: 'call_0', toolName: 'checkout', input: { amount: 5 } }),
          text('Done.'),
        ]).model,
        store: failingOnce(isStep('receipt')),
        tools: { checkout },
        retry: { baseDelayMs: 5 },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Buy it')))
    await answered(a)
    expect(effects).toEqual([
      'charge 5 (attempt 1)',
      'receipt for ch_1 (attempt 1)',
      'receipt for ch_1 (attempt 2)',
    ])
    const events = await eventsOf(a, 's')
    expect(
      events.filter((event) => event.type === 'ai.step.completed').map((e) => e.payload),
    ).toEqual([
      { scope: expect.any(String), name: 'charge', output: { chargeId: 'ch_1' } },
      { scope: expect.any(String), name: 'receipt', output: 'sent:ch_1' },
    ])
    expect(events.find((event) => event.type === 'ai.tool.result')?.payload).toMatchObject({
      outcome: 'output',
      output: { chargeId: 'ch_1', receipt: 'sent:ch_1' },
    })
    // The call's terminal result ends its steps' bookkeeping.
    expect((await a.session('s').state()).state.durableSteps).toEqual({})
  })

  it('Given a call that finished its "charge" step and is still running, When the user stops the turn, Then the cancelled call\'s steps leave the state: a call with a final outcome never runs again', async () => {
    const checkout = tool({
      inputSchema: z.object({}),
      execute: async (_input, { abortSignal }) => {
        const charge = await handlerContext().step('charge', () => ({ chargeId: 'ch_1' }))
        await new Promise((resolve) => abortSignal?.addEventListener('abort', resolve))
        if (abortSignal?.aborted) throw new Error('stopped')
        return charge
      },
    })
    const a = track(
      agent({
        name: 'shop',
        model: scriptedModel([toolCalls({ toolCallId: 'call_0', toolName: 'checkout', input: {} })])
          .model,
        tools: { checkout },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Buy it')))
    const seen = await until(async () => {
      const snapshot = await a.session('s').state()
      return Object.keys(snapshot.state.durableSteps).length > 0 && snapshot
    })
    const turnId = seen.state.active?.turnId
    if (!turnId) throw new Error('no active turn')
    await a.session('s').append(...inputs.stop({ turnId, frontier: seen.index }))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active).toBeNull()
    expect(state.tools).toEqual([])
    expect(state.durableSteps).toEqual({})
  })

  it('Given a call cut short by Pause now after its "charge" step, When the user resumes, Then its steps were kept and the rerun skips "charge": a call that has not finished keeps its steps', async () => {
    const effects: string[] = []
    const checkout = tool({
      inputSchema: z.object({}),
      execute: async (_input, { abortSignal }) => {
        const ctx = handlerContext()
        const charge = await ctx.step('charge', () => {
          effects.push(`charge (attempt ${ctx.attempt})`)
          return { chargeId: `ch_${ctx.attempt}` }
        })
        if (ctx.attempt === 1) {
          await new Promise((resolve) => abortSignal?.addEventListener('abort', resolve))
          throw new Error('paused')
        }
        return charge
      },
    })
    const a = track(
      agent({
        name: 'shop',
        model: scriptedModel([
          toolCalls({ toolCallId: 'call_0', toolName: 'checkout', input: {} }),
          text('Charged.'),
        ]).model,
        tools: { checkout },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Buy it')))
    await until(
      async () => Object.keys((await a.session('s').state()).state.durableSteps).length > 0,
    )
    await a.session('s').append(...inputs.pause({ when: 'now' }))
    await until(async () => (await a.session('s').state()).state.active?.phase === 'paused')
    const paused = (await a.session('s').state()).state
    expect(paused.tools.map((call) => call.status)).toEqual(['interrupted'])
    expect(Object.values(paused.durableSteps)).toEqual([
      { charge: { output: { chargeId: 'ch_1' } } },
    ])
    await a.session('s').append(...inputs.resume())
    await answered(a)
    expect(effects).toEqual(['charge (attempt 1)'])
    const result = (await eventsOf(a, 's')).find((event) => event.type === 'ai.tool.result')
    expect(result?.payload).toMatchObject({ outcome: 'output', output: { chargeId: 'ch_1' } })
    expect((await a.session('s').state()).state.durableSteps).toEqual({})
  })

  it('returns a result as recorded (JSON) on the first run too, so a replay cannot differ', async () => {
    let seen: unknown
    const stamp = tool({
      inputSchema: z.object({}),
      execute: async () => {
        seen = await handlerContext().step('stamp', () => ({ at: new Date(0), gone: undefined }))
        return 'ok'
      },
    })
    const a = track(
      agent({
        name: 'stamps',
        model: scriptedModel([
          toolCalls({ toolCallId: 'call_0', toolName: 'stamp', input: {} }),
          text('Done.'),
        ]).model,
        tools: { stamp },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Stamp')))
    await answered(a)
    expect(seen).toEqual({ at: '1970-01-01T00:00:00.000Z' })
  })

  it('Given a step result larger than an event, Then the step throws STEP_RESULT_TOO_LARGE naming the step: "Sized for results under the event size limit, with a clear error above it"', async () => {
    let caught: unknown
    const report = tool({
      inputSchema: z.object({}),
      execute: async () => {
        try {
          // Random bytes barely compress: far over the 380 KiB event limit.
          await handlerContext().step('render', () => randomBytes(600_000).toString('base64'))
        } catch (error) {
          caught = error
          throw error
        }
      },
    })
    const a = track(
      agent({
        name: 'reports',
        model: scriptedModel([
          toolCalls({ toolCallId: 'call_0', toolName: 'report', input: {} }),
          text('It failed.'),
        ]).model,
        tools: { report },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Report')))
    await answered(a)
    expect(caught).toMatchObject({ code: 'STEP_RESULT_TOO_LARGE', step: 'render' })
    const result = (await eventsOf(a, 's')).find((event) => event.type === 'ai.tool.result')
    expect(result?.payload).toMatchObject({
      outcome: 'error',
      errorText: expect.stringContaining('Step "render" returned a result too large to record'),
    })
    expect((await eventsOf(a, 's')).some((event) => event.type === 'ai.step.completed')).toBe(false)
  })

  it('gives an app event handler durable steps too: a retried handler skips its finished step', async () => {
    const effects: string[] = []
    let failures = 0
    const a = track(
      agent({
        name: 'handlers',
        model: scriptedModel([]).model,
        handlers: {
          'order.placed': async () => {
            const ctx = handlerContext()
            await ctx.step('notify', () => effects.push(`notify (attempt ${ctx.attempt})`))
            if (failures++ === 0) throw new Error('transient')
            effects.push(`done (attempt ${ctx.attempt})`)
          },
        },
        retry: { baseDelayMs: 5 },
        logger: quiet,
      }),
    )
    await a.session('s').append({ id: 'order-1', type: 'order.placed', payload: {} })
    await a.runtime.idle()
    expect(effects).toEqual(['notify (attempt 1)', 'done (attempt 2)'])
  })
})
