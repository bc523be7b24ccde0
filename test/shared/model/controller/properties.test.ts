import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type AIState,
  initialAIState,
  optimisticAIState,
  type PendingCommand,
  reduceAIState,
  turnAwaits,
} from '../../../../shared/ai.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'
import { advance } from '../../../../shared/model/controller/advance.ts'
import { play, scenarioArbitrary } from '../../../support/controller-scenario.ts'

const RUNS = { numRuns: 1000 }

const fold = (events: readonly StoredEvent[], from: AIState = initialAIState()): AIState =>
  events.reduce(reduceAIState, from)

// A fixed amount of CPU work (1,000 runs a property): a few seconds alone,
// longer while the other workers compute, so not the 5 s default.
describe('Properties over random command sequences (fast-check, 1,000 runs each)', {
  timeout: 60_000,
}, () => {
  it('At most one active turn: a turn starts only when none is active, and model calls never overlap', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        play(steps, ({ before, appended }) => {
          let state = before
          for (const event of appended) {
            if (event.type === 'ai.control.committed') {
              const starts = (event.payload as { changes: { op: string }[] }).changes.filter(
                (change) => change.op === 'turn.start',
              )
              if (starts.length > 0) expect(state.active).toBeNull()
              expect(starts.length).toBeLessThanOrEqual(1)
            }
            if (event.type === 'ai.generation.requested') {
              expect(state.activeRequestId).toBeNull()
              expect(state.activeGeneration?.status).not.toBe('running')
            }
            state = reduceAIState(state, event)
          }
        })
      }),
      RUNS,
    )
  })

  it('No message duplicated or lost: every accepted input is in exactly one of messages and the inbox until queue.remove() removes it', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        const accepted = new Set<string>()
        const removed = new Set<string>()
        play(steps, ({ after, appended }) => {
          for (const event of appended) {
            if (event.type !== 'ai.control.decided') continue
            const receipt = event.payload as { commandId: string; action: string; outcome: string }
            if (receipt.outcome !== 'applied') continue
            if (receipt.action === 'message' || receipt.action === 'steer')
              accepted.add(receipt.commandId)
          }
          for (const event of appended) {
            if (event.type !== 'ai.control.committed') continue
            for (const change of (event.payload as { changes: { op: string; inputId?: string }[] })
              .changes) {
              if (change.op === 'inbox.remove' && change.inputId) removed.add(change.inputId)
            }
          }
          const ids = [
            ...after.messages.map((message) => message.id),
            ...after.inbox.items.map((item) => item.id),
          ]
          expect(new Set(ids).size).toBe(ids.length)
          for (const id of accepted) expect(ids.includes(id)).toBe(!removed.has(id))
        })
      }),
      RUNS,
    )
  })

  it('Inbox order changes only through queue operations', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        play(steps, ({ before, after, command }) => {
          const action = command?.[0]?.payload.action
          if (action === 'queue.move' || action === 'queue.sendNow') return
          const remaining = before.inbox.items.map((item) => item.id)
          const now = after.inbox.items
            .map((item) => item.id)
            .filter((id) => remaining.includes(id))
          expect(now).toEqual(remaining.filter((id) => now.includes(id)))
        })
      }),
      RUNS,
    )
  })

  it('A stopped response is never reactivated: its turn never becomes active again and its message never changes', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        const stopped = new Map<string, string>()
        play(steps, ({ after, appended }) => {
          for (const event of appended) {
            if (event.type !== 'ai.control.committed') continue
            for (const change of (event.payload as { changes: { op: string; turnId?: string }[] })
              .changes) {
              if (change.op === 'turn.stop' && change.turnId) stopped.set(change.turnId, '')
            }
          }
          for (const [turnId, snapshot] of stopped) {
            expect(after.active?.turnId).not.toBe(turnId)
            const responseId = `a2.ai:response:${turnId.slice('a2.ai:turn:'.length)}`
            const current = JSON.stringify(
              after.messages.find((message) => message.id === responseId) ?? null,
            )
            if (snapshot === '') stopped.set(turnId, current)
            else expect(current).toBe(snapshot)
          }
        })
      }),
      RUNS,
    )
  })

  it('Folding is deterministic, and a JSON snapshot taken anywhere folds on to the same state', () => {
    fc.assert(
      fc.property(scenarioArbitrary, fc.nat(), (steps, cut) => {
        const session = play(steps, () => {})
        const log = session.log
        const once = fold(log)
        expect(fold(log)).toEqual(once)
        expect(once).toEqual(session.state)
        const at = log.length === 0 ? 0 : cut % log.length
        const snapshot = JSON.parse(JSON.stringify(fold(log.slice(0, at)))) as AIState
        expect(JSON.parse(JSON.stringify(fold(log.slice(at), snapshot)))).toEqual(
          JSON.parse(JSON.stringify(once)),
        )
      }),
      RUNS,
    )
  })

  it('Optimistic state converges to confirmed state once the commands are decided or rejected', () => {
    // Visible state: what a chat renders. The receipt arrives with the
    // decision; the response journal and the position of the turn's request
    // carry real log indexes only once stored.
    const visible = (state: AIState) => ({
      ...state,
      receipt: null,
      response: null,
      requests: {},
      active: state.active && { ...state.active, request: undefined },
    })
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        play(steps, ({ before, after, appended, command }) => {
          const [stored] = appended
          if (!command || stored?.type !== 'ai.control.requested') return
          const pending: PendingCommand = { ...(command[0] as PendingCommand), id: stored.id }
          const preview = optimisticAIState(before, [pending])
          const action = pending.payload.action
          if (action === 'steer' || action === 'queue.sendNow') {
            // Steering is shown after the response instead of in the queue: same inputs, no flicker in or out.
            const ids = (state: AIState) =>
              [
                ...state.messages.map((message) => message.id),
                ...state.inbox.items.map((item) => item.id),
              ].sort()
            expect(ids(preview)).toEqual(ids(after))
            expect(preview.active?.turnId).toEqual(after.active?.turnId)
          } else {
            expect(JSON.parse(JSON.stringify(visible(preview)))).toEqual(
              JSON.parse(JSON.stringify(visible(after))),
            )
          }
          // Once decided, the client drops the command: the overlay is the confirmed state.
          expect(optimisticAIState(after, [])).toBe(after)
        })
      }),
      RUNS,
    )
  })

  it("A turn never waits on nothing: once the controller has advanced, an active turn waits on a model step, a running tool, a deferred provider result, an approval, an input request, or the user's retry or resume", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        play(steps, ({ after }) => {
          expect(advance(after, { maxSteps: 4 })).toEqual([])
          if (after.active !== null) expect(turnAwaits(after)).not.toEqual([])
        })
      }),
      RUNS,
    )
  }, 30_000)

  it('A hand-off always hands off to something: a turn ends as a hand-off only while queued input steers it ("removing the item cancels it")', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        play(steps, ({ before, appended }) => {
          let state = before
          for (const event of appended) {
            const payload = event.payload as { reason?: string; turnId?: string }
            if (event.type === 'ai.message.completed' && payload.reason === 'handoff') {
              expect(state.inbox.items.map((item) => item.afterStepOf)).toContain(payload.turnId)
            }
            state = reduceAIState(state, event)
          }
        })
      }),
      RUNS,
    )
  }, 30_000)
})
