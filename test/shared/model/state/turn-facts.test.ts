import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type AIState, initialAIState, reduceAIState } from '../../../../shared/ai.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'
import { play, scenarioArbitrary } from '../../../support/controller-scenario.ts'

// `starting`, `activeGeneration`, `activeRequestId` and
// `activeResponseMessageId` are public readings of `active`. These
// properties hold them to it after every event of a random log: the logs
// real sessions write, and the same logs with what a scenario never writes
// (superseded attempts, given-up model steps, replays, events out of order).

interface Noise {
  /** Drives the injected events and the swaps. */
  picks: number[]
  shuffle: boolean
}

const noiseArbitrary: fc.Arbitrary<Noise> = fc.record({
  picks: fc.array(fc.nat(1000), { maxLength: 60 }),
  shuffle: fc.boolean(),
})

function noisy(log: readonly StoredEvent[], { picks, shuffle }: Noise): StoredEvent[] {
  if (picks.length === 0) return [...log]
  const events: StoredEvent[] = []
  log.forEach((event, position) => {
    events.push(event)
    const pick = picks[position % picks.length] ?? 0
    const payload = event.payload as { turnId?: string; generationId?: string; requestId?: string }
    if (event.type === 'ai.generation.started' && pick % 5 === 0) {
      events.push({
        ...event,
        id: `superseded-${position}`,
        type: 'ai.generation.superseded',
        payload: {
          turnId: payload.turnId,
          generationId: payload.generationId,
          requestId: pick % 2 === 0 ? payload.requestId : 'another-request',
        },
      })
    }
    if (
      (event.type === 'ai.generation.requested' || event.type === 'ai.generation.started') &&
      pick % 7 === 1
    ) {
      events.push({
        ...event,
        id: `dead-lettered-${position}`,
        type: 'ai.handler.dead-lettered',
        payload: {
          lane: 'generation',
          requestId: event.type === 'ai.generation.requested' ? event.id : payload.requestId,
          error: 'gave up',
          attempts: 3,
        },
      })
    }
    if (pick % 11 === 2) events.push(log[pick % log.length] as StoredEvent)
  })
  if (shuffle) {
    picks.forEach((pick, from) => {
      const to = pick % events.length
      if (from >= events.length) return
      ;[events[from], events[to]] = [events[to] as StoredEvent, events[from] as StoredEvent]
    })
  }
  return events
}

/** The turn facts as `active` states them, written out here rather than shared with the reducer. */
function expectFactsOfActive(state: AIState): void {
  const { active } = state
  expect(state.starting).toBe(active?.phase === 'starting')
  expect(state.activeResponseMessageId).toBe(active?.responseMessageId ?? null)
  const generation = active?.generation ?? null
  if (generation?.status === 'requested') {
    expect(state.activeRequestId).toBe(generation.requestId)
    expect(state.activeGeneration).toBeNull()
  } else {
    expect(state.activeRequestId).toBeNull()
    expect(state.activeGeneration).toBe(generation)
  }
}

const RUNS = { numRuns: 1000 }

describe('The turn facts on AIState are read off active (fast-check, 1,000 runs each)', {
  timeout: 60_000,
}, () => {
  it('after every event of a random log, starting, activeGeneration, activeRequestId and activeResponseMessageId agree with active', () => {
    fc.assert(
      fc.property(scenarioArbitrary, noiseArbitrary, (steps, noise) => {
        let state = initialAIState()
        for (const event of noisy(play(steps, () => {}).log, noise)) {
          state = reduceAIState(state, event)
          expectFactsOfActive(state)
        }
      }),
      RUNS,
    )
  })

  it('a session waits on a model request or runs an attempt, never both, and an idle session has no turn facts', () => {
    fc.assert(
      fc.property(scenarioArbitrary, noiseArbitrary, (steps, noise) => {
        let state = initialAIState()
        for (const event of noisy(play(steps, () => {}).log, noise)) {
          state = reduceAIState(state, event)
          if (state.activeRequestId !== null) expect(state.activeGeneration).toBeNull()
          if (state.active === null) {
            expect(state.starting).toBe(false)
            expect(state.activeGeneration).toBeNull()
            expect(state.activeRequestId).toBeNull()
            expect(state.activeResponseMessageId).toBeNull()
          }
        }
      }),
      RUNS,
    )
  })

  it('turn facts a snapshot got wrong are read off active again by the next event, of any type', () => {
    fc.assert(
      fc.property(scenarioArbitrary, fc.string(), (steps, type) => {
        const session = play(steps, () => {})
        const stale: AIState = {
          ...session.state,
          starting: !session.state.starting,
          activeRequestId: 'stale-request',
          activeResponseMessageId: 'stale-response',
        }
        const next = reduceAIState(stale, {
          id: 'next',
          type: `app.${type}`,
          payload: {},
          sessionId: 's1',
          life: '',
          index: session.log.length + 1,
          timestamp: 0,
        })
        expectFactsOfActive(next)
      }),
      { numRuns: 200 },
    )
  })

  it('an event that changes nothing returns the same state object, so subscribers see no change', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        const { state, log } = play(steps, () => {})
        const next = reduceAIState(state, {
          id: 'unrelated',
          type: 'app.note',
          payload: {},
          sessionId: 's1',
          life: '',
          index: log.length + 1,
          timestamp: 0,
        })
        expect(next).toBe(state)
      }),
      { numRuns: 200 },
    )
  })
})
