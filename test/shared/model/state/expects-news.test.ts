import { describe, expect, it } from 'vitest'
import {
  type ActiveTurn,
  type AIState,
  initialAIState,
  type ToolRecord,
  type TurnPhase,
} from '../../../../shared/model/state/ai-state.ts'
import { expectsNews } from '../../../../shared/model/state/expects-news.ts'

const turn = (phase: TurnPhase): ActiveTurn => ({
  turnId: 't1',
  inputId: 'm1',
  contextInputIds: ['m1'],
  phase,
  responseMessageId: 'r1',
  step: 1,
  handoff: false,
  requestCount: 1,
  generation: null,
})

const tool = (status: ToolRecord['status']): ToolRecord => ({
  toolCallId: 'c1',
  toolName: 'lookup',
  turnId: 't1',
  generationId: 'g1',
  messageId: 'r1',
  status,
})

const state = (changes: Partial<AIState>): AIState => ({ ...initialAIState(), ...changes })

describe('expectsNews: whether a quiet end is followed at once by a new stream', () => {
  it('is false for an idle session, and true while inputs wait for admission unless the inbox is paused', () => {
    expect(expectsNews(initialAIState())).toBe(false)
    const item = { id: 'm2' } as AIState['inbox']['items'][number]
    expect(expectsNews(state({ inbox: { items: [item], paused: false } }))).toBe(true)
    expect(expectsNews(state({ inbox: { items: [item], paused: true } }))).toBe(false)
  })

  it.each([
    ['starting', true],
    ['generating', true],
    ['pausing', true],
    ['waiting', true],
    ['paused', false],
    ['failed', false],
  ] as const)('a turn %s: %s', (phase, expected) => {
    expect(expectsNews(state({ active: turn(phase) }))).toBe(expected)
  })

  it('a turn waiting only on a person (an approval, an input) expects nothing; one running a tool does', () => {
    const approval = {
      approvalId: 'a1',
      toolCallId: 'c1',
      toolName: 'lookup',
      messageId: 'r1',
      generationId: 'g1',
      turnId: 't1',
    }
    const waiting = { active: turn('waiting'), pendingApprovals: [approval] }
    expect(expectsNews(state(waiting))).toBe(false)
    expect(expectsNews(state({ ...waiting, tools: [tool('running')] }))).toBe(true)
    expect(expectsNews(state({ ...waiting, tools: [tool('awaiting-approval')] }))).toBe(false)
    const input = { inputRequestId: 'i1', turnId: 't1', request: {}, status: 'pending' as const }
    expect(expectsNews(state({ active: turn('waiting'), pendingInputs: [input] }))).toBe(false)
  })

  it('a running compaction or an undecided command expects news', () => {
    const compaction = { status: 'running' } as AIState['compaction']
    expect(expectsNews(state({ compaction }))).toBe(true)
    const requests = { c1: {} } as unknown as AIState['requests']
    expect(expectsNews(state({ requests }))).toBe(true)
  })
})
