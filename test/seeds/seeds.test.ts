import { runWithHandlerContext } from 'a2-aws/ai/server'
import { describe, expect, it } from 'vitest'
import type { HandlerContext } from '../../shared/runtime/handler-context.ts'
import { assistant } from './assistant.ts'
import { GET, POST } from './route.ts'
import { setReminder } from './set-reminder.ts'
import { fxAssistant, piCompactedAssistant, piToolsAssistant } from './with-each-harness.ts'

describe('the seed samples, as documented', () => {
  it('"The same agent can run FX\'s or Pi\'s loop instead": the samples under `pi` and `fx` are agents', async () => {
    for (const each of [piToolsAssistant, piCompactedAssistant, fxAssistant]) {
      expect((await each.session('never-used').state()).index).toBe(0)
      each.runtime.close()
    }
  })

  it('"An empty session folds to the initial AIState; its log is created when the first message is pushed"', async () => {
    const snapshot = await assistant.session('never-used').state()
    expect(snapshot.index).toBe(0)
    expect(snapshot.state).toMatchObject({
      messages: [],
      inbox: { items: [], paused: false },
      active: null,
    })
    expect(await assistant.runtime.log.session('never-used').head()).toBe(0)
  })

  it('"GET streams events and POST accepts the browser\'s pushes", and the route rejects server-authored events with 400', async () => {
    expect(GET).toBe(POST)
    const response = await POST(
      new Request('http://app.test/api/agent?sessionId=s', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ type: 'ai.message.completed', payload: {} }] }),
      }),
    )
    expect(response.status).toBe(400)
  })

  it('"To test a context-reading tool, call it inside runWithHandlerContext(ctx, fn)"', async () => {
    const scheduled: unknown[] = []
    const ctx = {
      event: {
        id: 'evt-1',
        type: 'ai.tool.called',
        payload: {},
        sessionId: 's',
        index: 7,
        timestamp: 0,
      },
      attempt: 1,
      signal: new AbortController().signal,
      agentName: 'support-agent',
      session: {
        id: 's',
        append: async () => [],
        state: async () => ({ state: {}, index: 0 }),
        schedule: async (...args: unknown[]) => {
          scheduled.push(args)
        },
      },
    } as unknown as HandlerContext
    const execute = setReminder.execute as (input: unknown, options: unknown) => Promise<unknown>
    const output = await runWithHandlerContext(ctx, () =>
      execute({ delaySeconds: 60, reminder: 'stretch' }, { toolCallId: 'call-1', messages: [] }),
    )
    expect(output).toEqual({ scheduled: true, delaySeconds: 60 })
    expect(scheduled).toEqual([
      [
        'reminder:call-1',
        { delay: '60s' },
        expect.objectContaining({ id: 'reminder:evt-1', type: 'ai.control.requested' }),
      ],
    ])
  })
})
