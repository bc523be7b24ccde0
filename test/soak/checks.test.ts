import { describe, expect, it } from 'vitest'
import type { StoredEvent } from '../../shared/log/event.ts'
import { initialAIState } from '../../shared/model/state/ai-state.ts'
import { brokenInvariants, type SessionFacts } from './checks.ts'
import { toolRuns } from './soak-agent.ts'

// Each invariant of the soak, shown to catch what it is for.

const event = (index: number, id: string, type: string, payload: unknown = {}): StoredEvent => ({
  id,
  index,
  type,
  payload,
  sessionId: 's',
  life: '',
  timestamp: index,
})

const ended: StoredEvent[] = [
  event(1, 'm1', 'ai.control.requested'),
  event(2, 'c1', 'ai.control.committed', { changes: [{ op: 'turn.start', turnId: 't1' }] }),
  event(3, 'd1', 'ai.control.decided', { commandId: 'm1' }),
  event(4, 'e1', 'ai.message.completed', { turnId: 't1' }),
]

function facts(overrides: Partial<SessionFacts> = {}): SessionFacts {
  return {
    run: { sessionId: 's', appended: [], turnMs: [], approvalsApproved: 0, problems: [] },
    events: ended,
    state: initialAIState(),
    spans: [],
    tools: toolRuns(),
    ...overrides,
  }
}

describe('the soak invariants', () => {
  it('hold for a session whose one turn ended', () => {
    expect(brokenInvariants(facts())).toEqual([])
  })

  it('catch a gap, a duplicated ID and a lost append', () => {
    const broken = brokenInvariants(
      facts({
        events: [...ended, event(6, 'e1', 'ai.tool.result')],
        run: { ...facts().run, appended: [event(5, 'x1', 'app.note')] },
      }),
    )
    expect(broken).toEqual([
      'event e1 is at 6, not 5',
      'event ID e1 is in the log twice',
      'event x1 (#5), returned by an append, is lost',
    ])
  })

  it('catch a command without its receipt and a turn that never ended', () => {
    const broken = brokenInvariants(facts({ events: ended.slice(0, 2) }))
    expect(broken).toEqual(['command m1 has 0 receipts', 'turn t1 never ended'])
  })

  it("catch a 'report' tool run twice, and a closing nobody approved", () => {
    const tools = toolRuns()
    tools.runs.set('runCommand', new Map([['s', new Map([['id-1', 2]])]]))
    tools.runs.set('closeTicket', new Map([['s', new Map([['id-2', 1]])]]))
    expect(brokenInvariants(facts({ tools }))).toEqual([
      "runCommand (toolRecovery: 'report') ran 2 times for id-1",
      'closeTicket ran for 1 calls, but 0 were approved',
    ])
  })

  it("catch a session's model calls overlapping, and one that never ended", () => {
    const spans = [
      { sessionId: 's', startedAt: 0, endedAt: 10 },
      { sessionId: 's', startedAt: 5, endedAt: 20 },
      { sessionId: 'other', startedAt: 6, endedAt: 7 },
      { sessionId: 's', startedAt: 30 },
    ]
    expect(brokenInvariants(facts({ spans }))).toEqual([
      'a model call never ended',
      'model calls overlapped by 5.0 ms',
    ])
  })
})
