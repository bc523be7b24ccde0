import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { wakeUpsFor } from '../../../shared/agent/wiring/wake-ups-for.ts'
import type { StoredEvent } from '../../../shared/log/event.ts'
import { controllerRounds } from '../../../shared/model/controller/controller-rounds.ts'
import { play, scenarioArbitrary } from '../../support/controller-scenario.ts'
import { FakeSession } from '../../support/fake-session.ts'

// Admission is woken only by events that can change one of its decisions
// (wake-ups-for.ts). The proof: over random sessions, every time a writer's
// batch (a command, a model step's facts, a tool's result) leaves the
// controller something to do, the batch wakes admission. The controller's
// own batches need no wake: its lane runs rounds until nothing is due.

const settled = new WeakMap<FakeSession, number>()
const missed: { batch: string[]; due: string[] }[] = []
const woken: { types: string[]; wakes: boolean }[] = []
const originalSettle = FakeSession.prototype.settle

beforeEach(() => {
  missed.length = 0
  woken.length = 0
  FakeSession.prototype.settle = function (this: FakeSession): StoredEvent[] {
    const batch = this.log.slice(settled.get(this) ?? 0)
    // What the controller's rounds would append now, as admission runs them.
    const due = controllerRounds(
      this.state,
      { maxSteps: this.maxSteps },
      { decides: true, revokes: true, passesPausing: true },
    ).events
    const wakes = wakeUpsFor(batch, { handledTypes: new Set() }).some(
      (wakeUp) => wakeUp.lane === 'admission',
    )
    woken.push({ types: batch.map((event) => event.type), wakes })
    if (due.length > 0 && !wakes) {
      missed.push({ batch: batch.map((event) => event.type), due: due.map((event) => event.type) })
    }
    const appended = originalSettle.call(this)
    // What the rounds appended is the controller's own: no wake needed.
    const own = wakeUpsFor(appended, { handledTypes: new Set() }).some(
      (wakeUp) => wakeUp.lane === 'admission',
    )
    if (appended.length > 0) woken.push({ types: appended.map((event) => event.type), wakes: own })
    settled.set(this, this.log.length)
    return appended
  }
})
afterEach(() => {
  FakeSession.prototype.settle = originalSettle
})

describe('admission wake-ups', () => {
  it('every batch that leaves the controller something to do wakes admission', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        play(steps, () => {})
        expect(missed).toEqual([])
      }),
      { numRuns: 300 },
    )
  })

  it("the controller's own batches, streamed progress, a step's opening and its tool calls wake it no more", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        woken.length = 0
        play(steps, () => {})
        for (const { types, wakes } of woken) {
          const quiet = types.every((type) =>
            [
              'ai.control.decided',
              'ai.control.committed',
              'ai.message.created',
              'ai.message.completed',
              'ai.generation.requested',
              'ai.generation.started',
              'ai.tool.called',
              'ai.generation.progress',
              'ai.approval.requested',
            ].includes(type),
          )
          if (quiet) expect(wakes, types.join(', ')).toBe(false)
        }
      }),
      { numRuns: 100 },
    )
  })
})
