import { describe, expect, it } from 'vitest'
import { type AIState, initialAIState, reduceAIState } from '../../../../shared/ai.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'
import { toolClaimKey } from '../../../../shared/model/ids/claim-keys.ts'

let index = 0
const stored = (type: string, payload: unknown): StoredEvent => ({
  id: `e${++index}`,
  type,
  payload,
  sessionId: 's',
  life: '',
  index,
  timestamp: 0,
})
const fold = (events: StoredEvent[], from: AIState = initialAIState()): AIState =>
  events.reduce(reduceAIState, from)

const call = { toolCallId: 'call_0', generationId: 'g1' }
const scope = toolClaimKey(call)
const step = (stepScope: string, name: string, output?: unknown) =>
  stored('ai.step.completed', {
    scope: stepScope,
    name,
    ...(output === undefined ? {} : { output }),
  })

describe('the fold of durable steps', () => {
  it('records each step of a scope by name, keeping the first result of a name', () => {
    const state = fold([
      step(scope, 'charge', { id: 'ch_1' }),
      step(scope, 'notify'),
      step(scope, 'charge', { id: 'ch_2' }),
    ])
    expect(state.durableSteps).toEqual({
      [scope]: { charge: { output: { id: 'ch_1' } }, notify: {} },
    })
  })

  it("drops a call's steps when its terminal result is recorded, not on a preliminary one", () => {
    const calling: AIState = {
      ...initialAIState(),
      tools: [{ ...call, toolName: 'checkout', messageId: 'r1', turnId: 't1', status: 'running' }],
    }
    const result = (preliminary: boolean) =>
      stored('ai.tool.result', {
        ...call,
        messageId: 'r1',
        outcome: 'output',
        output: 1,
        ...(preliminary ? { preliminary } : {}),
      })
    const other = toolClaimKey({ toolCallId: 'call_1', generationId: 'g1' })
    const running = fold([step(scope, 'charge', 1), step(other, 'x', 2), result(true)], calling)
    expect(Object.keys(running.durableSteps)).toEqual([scope, other])
    expect(fold([result(false)], running).durableSteps).toEqual({ [other]: { x: { output: 2 } } })
  })

  it("Given a cancelled call, When its worker's step lands before its fence closes, Then the step is not kept: the call never runs again", () => {
    const cancelled: AIState = {
      ...initialAIState(),
      tools: [
        { ...call, toolName: 'checkout', messageId: 'r1', turnId: 't1', status: 'cancelled' },
      ],
    }
    expect(fold([step(scope, 'charge', 1)], cancelled).durableSteps).toEqual({})
  })

  it("drops an earlier handler's steps when the next handler records one (handlers run one at a time)", () => {
    const state = fold([
      step(scope, 'charge', 1),
      step('handler:e1', 'a', 1),
      step('handler:e2', 'b', 2),
    ])
    expect(state.durableSteps).toEqual({
      [scope]: { charge: { output: 1 } },
      'handler:e2': { b: { output: 2 } },
    })
  })
})
