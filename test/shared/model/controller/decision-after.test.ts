import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { wakeUpsFor } from '../../../../shared/agent/wiring/wake-ups-for.ts'
import { type AIEventInput, inputs } from '../../../../shared/ai.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'
import { controllerRound } from '../../../../shared/model/controller/controller-round.ts'
import { decisionAfter } from '../../../../shared/model/controller/decision-after.ts'
import { play, scenarioArbitrary } from '../../../support/controller-scenario.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

// A step's end or a tool's result goes with the controller's decision after
// it, which its worker takes (decision-after.ts) over the state it appends
// at. The proof that this is admission's own decision: over random
// sessions, at every such fact, the worker's rounds (folded as a draft) are
// the events admission's rounds append once the fact is stored (folded with
// real indexes); and when the worker says nothing is left (`settled`, the
// event marked `decided`, waking no admission), nothing is due.

const CLOSING = new Set(['ai.generation.completed', 'ai.tool.result'])
const checked: { closing: string; settled: boolean }[] = []
const mismatches: { closing: string; worker: string[]; admission: string[] }[] = []
const originalFact = FakeSession.prototype.fact

beforeEach(() => {
  checked.length = 0
  mismatches.length = 0
  FakeSession.prototype.fact = function (this: FakeSession, ...events: AIEventInput[]): void {
    const closing = events.at(-1)
    if (closing === undefined || !CLOSING.has(closing.type) || closing.id === undefined) {
      originalFact.apply(this, events)
      return
    }
    this.append(...events.slice(0, -1))
    // No command waits here in a real worker's state either: admission
    // decides each as it lands, before the worker's next append.
    this.settle()
    const decision = decisionAfter(this.state, closing, { maxSteps: this.maxSteps })
    const [stored] = this.append(closing)
    const appended = this.settle()
    const worker = decision.events.map(shown)
    const admission = appended.map(shown)
    const matches = decision.settled
      ? JSON.stringify(worker) === JSON.stringify(admission)
      : JSON.stringify(worker) === JSON.stringify(admission.slice(0, worker.length))
    if (!matches) mismatches.push({ closing: closing.type, worker, admission })
    if (decision.settled) {
      expect(controllerRound(this.state, { maxSteps: this.maxSteps }).events).toEqual([])
      const marked = {
        ...(stored as StoredEvent),
        payload: { ...(stored?.payload as object), decided: true },
      }
      expect(
        wakeUpsFor([marked], { handledTypes: new Set() }).some((w) => w.lane === 'admission'),
      ).toBe(false)
    }
    checked.push({ closing: closing.type, settled: decision.settled })
  }
})
afterEach(() => {
  FakeSession.prototype.fact = originalFact
})

const shown = (event: { id?: string; type: string; payload: unknown }) =>
  JSON.stringify([event.id, event.type, event.payload])

describe('the decision a worker appends with its closing event', () => {
  it("is admission's own, and when it says nothing is left, nothing is due", () => {
    fc.assert(
      fc.property(scenarioArbitrary, (steps) => {
        play(steps, () => {})
        expect(mismatches).toEqual([])
      }),
      { numRuns: 300 },
    )
    // The property was exercised on both kinds of closing event.
    const kinds = new Set(checked.map(({ closing, settled }) => `${closing}:${settled}`))
    expect(kinds).toContain('ai.generation.completed:true')
    expect(kinds).toContain('ai.tool.result:true')
  })

  it('leaves a waiting command to admission, and then says something is left', () => {
    const session = new FakeSession()
    session.append(...inputs.message(userMessage('m1', 'hi')))
    expect(Object.keys(session.state.requests)).toHaveLength(1)
    const decision = decisionAfter(session.state, {
      id: 'a2.ai:tool-result:g:c:1',
      type: 'ai.tool.result',
      payload: { toolCallId: 'c', generationId: 'g', messageId: 'm', outcome: 'output', output: 1 },
    })
    expect(decision).toEqual({ events: [], settled: false })
  })
})
