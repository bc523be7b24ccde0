import { describe, expect, it } from 'vitest'
import { initialAIState } from '../../../shared/ai.ts'
import { indicatorOf } from '../../../shared/client/session-view.ts'
import type { AIState } from '../../../shared/model/state/ai-state.ts'

const base = initialAIState()

describe('indicator', () => {
  it("is 'compacting' while a summary runs, whatever else is going on", () => {
    const running = { compactionId: 'c1', messageId: 'r1', status: 'running' as const }
    const state: AIState = { ...base, starting: true, compaction: running }
    expect(indicatorOf(state)).toBe('compacting')
    expect(indicatorOf({ ...state, compaction: { ...running, status: 'completed' } })).toBe(
      'starting',
    )
  })

  it("is 'starting' for a turn awaiting its first step, and null when idle", () => {
    expect(indicatorOf({ ...base, starting: true })).toBe('starting')
    expect(indicatorOf(base)).toBeNull()
  })
})
