import { tool } from 'ai'
import { describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { resolveAgentConfig } from '../../../shared/agent/wiring/agent-config.ts'
import { handlerContext, inputs } from '../../../shared/ai.ts'
import type { StoredEvent } from '../../../shared/index.ts'
import { controlRequestSchema } from '../../../shared/model/events/control.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, textOf, track, until, userMessage } from '../../support/agent-log.ts'

const silent = { info: () => {}, warn: () => {}, error: () => {} }

describe('the configuration an agent resolves once', () => {
  it("reaches tools, resolvers and timers with the agent's own clock (`now`)", async () => {
    // Ten years ahead: anything on the host's clock would be far off.
    const skew = 10 * 365 * 24 * 3600_000
    const now = () => Date.now() + skew
    const fired: number[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'remind', input: {} }),
      text('Set.'),
      text('Reminded.'),
    ])
    let resolvedAt: number | undefined
    const a = track(
      agent({
        name: 'clocked',
        model: (context) => {
          resolvedAt ??= context.event.timestamp
          return script.model
        },
        logger: silent,
        now,
        tools: {
          remind: tool({
            inputSchema: z.object({}),
            execute: async () => {
              const ctx = handlerContext()
              fired.push(ctx.event.timestamp)
              // Counts from the call's event, on the agent's clock: fires in 200 ms.
              await ctx.session.schedule(
                'nudge',
                { delay: 200 },
                ...inputs.message(userMessage('r1', 'Reminder')),
              )
              return { ok: true }
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('u1', 'remind me')))
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.messages.length === 4 && current.state.active === null && current
    }, 5_000)
    expect(textOf(state.messages[3])).toBe('Reminded.')
    expect(resolvedAt).toBeGreaterThan(Date.now() + skew / 2)
    expect(fired[0]).toBeGreaterThan(Date.now() + skew / 2)
  })

  it('hands resolvers and tools the stored event itself, not one rebuilt from state', async () => {
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'look', input: { q: 'x' } }),
      text('Done.'),
    ])
    const seen: { resolver?: StoredEvent; tool?: StoredEvent } = {}
    const a = track(
      agent({
        name: 'stored',
        model: (context) => {
          seen.resolver ??= context.event as StoredEvent
          return script.model
        },
        logger: silent,
        tools: {
          look: tool({
            inputSchema: z.object({ q: z.string() }),
            execute: async () => {
              seen.tool = handlerContext().event as StoredEvent
              return 'found'
            },
          }),
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('u1', 'look')))
    await until(async () => (await a.session('s').state()).state.messages.length === 2 && seen.tool)
    await a.runtime.idle()
    const log = await eventsOf(a, 's')
    const stored = (id: string | undefined) => log.find((event) => event.id === id)
    expect(seen.resolver).toEqual(stored(seen.resolver?.id))
    expect(seen.resolver?.type).toBe('ai.generation.requested')
    expect(seen.tool).toEqual(stored(seen.tool?.id))
    // The stored payload: no reducer fields such as the call's status.
    expect(seen.tool?.payload).not.toHaveProperty('status')
  })

  it('wakes the lanes for what a handler appends: an input it sends after the turn starts a turn', async () => {
    const script = scriptedModel([text('First.'), text('Second.')])
    const a = track(
      agent({
        name: 'follow-up',
        model: script.model,
        logger: silent,
        handlers: {
          'ai.message.completed': async ({ session }) => {
            // Only after the first answer: ask a follow-up, as a service would.
            const { state } = (await session.state()) as { state: { messages: unknown[] } }
            if (state.messages.length > 2) return
            await session.append(...inputs.message(userMessage('u2', 'and then?')))
          },
        },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('u1', 'hi')))
    const { state } = await until(async () => {
      const current = await a.session('s').state()
      return current.state.messages.length === 4 && current.state.active === null && current
    }, 5_000)
    expect(state.messages.map((message) => textOf(message))).toEqual([
      'hi',
      'First.',
      'and then?',
      'Second.',
    ])
  })

  it("decides commands with the zod schema the log validates pushes with, not the browser's hand-written check", () => {
    const config = resolveAgentConfig({ name: 'checked', model: scriptedModel([]).model })
    const parse = vi.spyOn(controlRequestSchema, 'safeParse')
    try {
      const payload = { action: 'pause', when: 'now' }
      expect(config.controller.isWellFormed?.(payload)).toBe(true)
      expect(parse).toHaveBeenCalledWith(payload)
      expect(config.controller.isWellFormed?.({ action: 'pause', when: 'later' })).toBe(false)
    } finally {
      parse.mockRestore()
    }
  })
})
