import type { ToolSet, UIMessageChunk } from 'ai'
import { describe, expect, it } from 'vitest'
import {
  agent,
  type Harness,
  type HarnessAdapter,
  type HarnessStepContext,
} from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { textOf, track, until, userMessage } from '../../../support/agent-log.ts'

/** A third party's loop on the public port: it answers each step with the user's last words. */
function echoHarness(made: ToolSet[]): HarnessAdapter {
  return {
    type: 'echo',
    maxSteps: 3,
    create({ tools }): Harness {
      made.push(tools)
      return {
        type: 'echo',
        validatesToolInput: false,
        tools: {},
        compactsByDefault: false,
        async step(context: HarnessStepContext) {
          const id = context.event.payload.responseMessageId
          const last = context.messages.at(-1)
          const words = last?.parts.map((part) => (part.type === 'text' ? part.text : '')).join('')
          const chunks: UIMessageChunk[] = [
            { type: 'start', messageId: id },
            { type: 'start-step' },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: `echo: ${words}` },
            { type: 'text-end', id: 't' },
            { type: 'finish-step' },
            { type: 'finish', finishReason: 'stop' },
          ]
          return {
            stream: new ReadableStream<UIMessageChunk>({
              start(controller) {
                for (const chunk of chunks) controller.enqueue(chunk)
                controller.close()
              },
            }),
          }
        },
      }
    },
  }
}

describe('a harness adapter of your own (a2-aws/ai/server exports the port)', () => {
  it('Given an adapter, When agent() is made, Then create() gets the agent’s tools once and its loop answers the turn', async () => {
    const made: ToolSet[] = []
    const a = track(
      agent({ name: 'echo', model: 'openai/gpt-5.6-terra', harness: echoHarness(made) }),
    )
    expect(made).toEqual([{}])
    await a.session('s').append(...inputs.message(userMessage('m1', 'hello')))
    const state = await until(async () => {
      await a.runtime.idle()
      const { state } = await a.session('s').state()
      return state.active === null && state.messages.length === 2 ? state : undefined
    })
    expect(textOf(state.messages.at(-1) as never)).toBe('echo: hello')
  })

  it('Given an adapter spread with other settings (as the conformance suite does), Then the spread keeps create(), which agent() runs', () => {
    const made: ToolSet[] = []
    expect(() =>
      agent({
        name: 'echo',
        model: 'openai/gpt-5.6-terra',
        harness: { ...echoHarness(made), compaction: false },
      }),
    ).not.toThrow()
    expect(made).toHaveLength(1)
  })
})
