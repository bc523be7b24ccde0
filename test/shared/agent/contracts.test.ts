import { tool } from 'ai'
import { describe, expect, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { agentContract, handlerContext, idempotentId, inputs } from '../../../shared/ai.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { supportDesk } from '../../seeds/support-desk.ts'
import { textOf, track, userMessage } from '../../support/agent-log.ts'

describe('agentContract() and app state', () => {
  it("merges the app's state into the session state, folded by the contract's reducer", async () => {
    const a = track(agent({ contract: supportDesk, model: scriptedModel([]).model }))
    await a.session('s').append({ type: 'plan.changed', payload: { plan: 'pro' } })
    await a.session('s').append({ type: 'ticket.flagged', payload: { ticketId: 'T-1' } })
    const { state, index } = await a.session('s').state()
    expect(index).toBe(2)
    expect(state.plan).toBe('pro')
    expect(state.flagged).toEqual(['T-1'])
    expect(state.messages).toEqual([])
    expectTypeOf(state.plan).toEqualTypeOf<'free' | 'pro'>()
  })

  it("lets the app's state drive the model choice, resolved again at each model step", async () => {
    const free = scriptedModel([text('free answer')])
    const pro = scriptedModel([text('pro answer')])
    const a = track(
      agent({
        contract: supportDesk,
        model: ({ state }) => (state.plan === 'pro' ? pro.model : free.model),
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'first')))
    await a.runtime.idle()
    await a.session('s').append({ type: 'plan.changed', payload: { plan: 'pro' } })
    await a.session('s').append(...inputs.message(userMessage('m2', 'second')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.messages.map(textOf)).toEqual(['first', 'free answer', 'second', 'pro answer'])
  })

  it('fails the turn with the message of a resolver that throws', async () => {
    const a = track(
      agent({
        name: 'resolver',
        model: () => {
          throw new Error('no model for this plan')
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'hi')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(state.active).toMatchObject({
      phase: 'failed',
      error: expect.stringContaining('no model for this plan'),
    })
  })

  it('refuses state that shadows AIState, and ai.* event types, with a clear message', () => {
    expect(() =>
      agentContract({
        name: 'bad',
        reducer: {
          name: 'bad.v1',
          // @ts-expect-error: `messages` belongs to AIState
          initialState: { messages: [] as string[] },
          fold: (state) => state,
        },
      }),
    ).toThrow(/shadows AIState: messages/)
    expect(() => agentContract({ name: 'bad', events: { 'ai.mine': z.object({}) } })).toThrow(
      /belong to A2/,
    )
  })

  it("refuses only AIState's own keys: a key an object inherits (constructor) is the app's", () => {
    const own = agentContract({
      name: 'own',
      reducer: { name: 'own.v1', initialState: { constructor: 'mine' }, fold: (state) => state },
    })
    expect(own.reducer?.initialState).toEqual({ constructor: 'mine' })
    expect(() =>
      agentContract({
        name: 'bad',
        // @ts-expect-error: `starting` belongs to AIState
        reducer: { name: 'bad.v1', initialState: { starting: 1 }, fold: (state) => state },
      }),
    ).toThrow(/shadows AIState: starting/)
  })

  it("uses the reducer's name as the snapshot identity, joined with the AI reducer's", async () => {
    const reads: string[] = []
    const a = track(agent({ contract: supportDesk, model: scriptedModel([]).model }))
    const store = a.runtime.store
    const readSnapshot = store.readSnapshot.bind(store)
    store.readSnapshot = async (sessionId, name) => {
      reads.push(name)
      return readSnapshot(sessionId, name)
    }
    await a.session('fresh').state()
    expect(reads).toEqual(['a2.ai.state.v6+support-desk.v1'])
  })

  it('types app events in tools through handlerContext(contract)', async () => {
    const flagged: string[] = []
    const flag = tool({
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }, { toolCallId }) => {
        const ctx = handlerContext(supportDesk)
        await ctx.session.append({
          id: idempotentId('support-desk', ctx.session.id, toolCallId),
          type: 'ticket.flagged',
          payload: { ticketId },
        })
        flagged.push(ctx.agentName)
        return { flagged: ticketId }
      },
    })
    const a = track(
      agent({
        contract: supportDesk,
        tools: { flag },
        model: scriptedModel([
          toolCalls({ toolCallId: 'c1', toolName: 'flag', input: { ticketId: 'T-7' } }),
          text('Flagged.'),
        ]).model,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'flag T-7')))
    await a.runtime.idle()
    const { state } = await a.session('s').state()
    expect(flagged).toEqual(['support-desk'])
    expect(state.flagged).toEqual(['T-7'])
  })
})

describe('idempotentId()', () => {
  it('derives the same ID from the same parts, and different IDs otherwise', () => {
    expect(idempotentId('room', 's1', 'evt-1')).toBe(idempotentId('room', 's1', 'evt-1'))
    expect(idempotentId('room', 's1', 'evt-1')).not.toBe(idempotentId('room', 's2', 'evt-1'))
    expect(idempotentId('a:b', 'c')).not.toBe(idempotentId('a', 'b:c'))
    expect(idempotentId('x')).toMatch(/^id-[A-Za-z0-9_-]{32}$/)
  })

  it('makes a retried forward converge on one message in the other session', async () => {
    const a = track(agent({ name: 'room-agent', model: scriptedModel([text('hello room')]).model }))
    const forward = () =>
      a.session('agent-session').append(
        ...inputs.message({
          id: idempotentId('room-agent', 'agent-session', 'room-evt-9'),
          role: 'user',
          parts: [{ type: 'text', text: 'hi' }],
        }),
      )
    await forward()
    await forward()
    await a.runtime.idle()
    const { state } = await a.session('agent-session').state()
    expect(state.messages.filter((m) => m.role === 'user')).toHaveLength(1)
  })
})
