import { describe, expect, it } from 'vitest'
import type { StoredEvent } from '../../../../shared/index.ts'
import {
  AI_STATE_REDUCER,
  aiStateReducer,
} from '../../../../shared/model/state/ai-state-reducer.ts'

// A test-only registry in place of A2's (empty) one: as if a package version
// had renamed `model` to `modelId` in 'ai.model.metadata.resolved'.
const registry = {
  'ai.model.metadata.resolved': {
    version: 2,
    upcast: {
      1: ({ model, ...rest }: { model: string; status: string }) => ({ modelId: model, ...rest }),
    },
  },
}

const resolved: StoredEvent = {
  id: 'a2.meta',
  type: 'ai.model.metadata.resolved',
  payload: { model: 'acme/m1', status: 'resolved', contextWindow: 1000 },
  sessionId: 's',
  life: 'L',
  index: 1,
  timestamp: 1,
}

describe("the AI reducer folds ai.* events upcast by A2's registry", () => {
  it('folds a version-1 event as the current version, for whoever folds a raw log with it', () => {
    const reducer = aiStateReducer(registry)
    const state = reducer.fold(reducer.initialState, resolved)
    expect(state.modelMetadata['acme/m1']).toEqual({ status: 'resolved', contextWindow: 1000 })
  })

  it('AI_STATE_REDUCER is that reducer over A2s registry, under its snapshot name', () => {
    expect(AI_STATE_REDUCER.name).toBe('a2.ai.state.v6')
    // The registry is empty: a version-1 payload is folded as written.
    const state = AI_STATE_REDUCER.fold(AI_STATE_REDUCER.initialState, resolved)
    expect(state.modelMetadata['acme/m1']).toBeUndefined()
  })
})
