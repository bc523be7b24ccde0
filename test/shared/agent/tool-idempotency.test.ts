import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { handlerContext, inputs } from '../../../shared/ai.ts'
import type { EventStore } from '../../../shared/log/event-store.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { eventsOf, track, until, userMessage } from '../../support/agent-log.ts'

const quiet = { info() {}, warn() {}, error() {} }

/**
 * A memory store whose first appends of a tool result fail, the log's own
 * second try included: A2 fails just after the tool ran.
 */
function failingFirstToolResult(): EventStore {
  const store = memoryEventStore()
  let failures = 0
  return new Proxy(store, {
    get(target, property, receiver) {
      if (property !== 'append') return Reflect.get(target, property, receiver)
      const append: EventStore['append'] = async (sessionId, events, options) => {
        if (failures < 2 && events.some((event) => event.type === 'ai.tool.result')) {
          failures++
          throw new Error('store unavailable')
        }
        return target.append(sessionId, events, options)
      }
      return append
    },
  })
}

function recordingTool(seen: { key: string; attempt: number }[]) {
  return tool({
    inputSchema: z.object({ amount: z.number() }),
    execute: async ({ amount }) => {
      const ctx = handlerContext()
      seen.push({ key: ctx.idempotencyKey, attempt: ctx.attempt })
      return { charged: amount }
    },
  })
}

async function settled(a: Parameters<typeof eventsOf>[0], sessionId: string, turns: number) {
  await until(async () => {
    const events = await eventsOf(a, sessionId)
    return events.filter((event) => event.type === 'ai.message.completed').length >= turns
  }, 3_000)
  await a.runtime.idle()
}

describe("a tool execution's idempotency key", () => {
  it('Given a call whose result could not be recorded, When A2 retries it, Then the retry sees the same key: "the same on every retry and recovery of that call"', async () => {
    const seen: { key: string; attempt: number }[] = []
    const script = scriptedModel([
      toolCalls({ toolCallId: 'call_0', toolName: 'charge', input: { amount: 5 } }),
      text('Charged.'),
    ])
    const a = track(
      agent({
        name: 'payments',
        model: script.model,
        store: failingFirstToolResult(),
        tools: { charge: recordingTool(seen) },
        retry: { baseDelayMs: 5 },
        logger: quiet,
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Charge 5')))
    await settled(a, 's', 1)
    expect(seen.map((run) => run.attempt)).toEqual([1, 2])
    expect(seen[1]?.key).toBe(seen[0]?.key)
    expect(seen[0]?.key).toMatch(/^id-[\w-]{32}$/)
  })

  it('Given a provider that reuses call_0, When turn 2 and another session call call_0 again, Then each logical call gets its own key: "different for a reused provider call ID in another turn"', async () => {
    const seen: { key: string; attempt: number }[] = []
    const turn = () => [
      toolCalls({ toolCallId: 'call_0', toolName: 'charge', input: { amount: 5 } }),
      text('Charged.'),
    ]
    const a = track(
      agent({
        name: 'payments',
        model: scriptedModel([...turn(), ...turn(), ...turn()]).model,
        tools: { charge: recordingTool(seen) },
      }),
    )
    await a.session('s').append(...inputs.message(userMessage('m1', 'Charge 5')))
    await settled(a, 's', 1)
    await a.session('s').append(...inputs.message(userMessage('m2', 'Again')))
    await settled(a, 's', 2)
    await a.session('t').append(...inputs.message(userMessage('m3', 'Charge 5')))
    await settled(a, 't', 1)
    expect(seen).toHaveLength(3)
    expect(new Set(seen.map((run) => run.key)).size).toBe(3)
  })

  it('gives an app event handler a key per event, the same on its retry', async () => {
    const keys: string[] = []
    let failures = 0
    const a = track(
      agent({
        name: 'handlers',
        model: scriptedModel([]).model,
        handlers: {
          'ticket.flagged': async () => {
            keys.push(handlerContext().idempotencyKey)
            if (failures++ === 0) throw new Error('transient')
          },
        },
        retry: { baseDelayMs: 5 },
        logger: quiet,
      }),
    )
    await a.session('s').append({ id: 'flag-1', type: 'ticket.flagged', payload: {} })
    await a.session('s').append({ id: 'flag-2', type: 'ticket.flagged', payload: {} })
    await a.runtime.idle()
    expect(keys).toHaveLength(3)
    expect(keys[1]).toBe(keys[0])
    expect(keys[2]).not.toBe(keys[0])
  })
})
