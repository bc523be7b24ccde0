import { describe, expect, it } from 'vitest'
import {
  type ClaimedStep,
  takeoverRule,
} from '../../../../shared/agent/model-step/takeover-rule.ts'
import { inputs } from '../../../../shared/ai.ts'
import type { StateSnapshot } from '../../../../shared/log/reducer.ts'
import {
  attemptGenerationId,
  type StepToServe,
  stepToServe,
} from '../../../../shared/model/controller/generation-attempt.ts'
import type { AIState } from '../../../../shared/model/state/ai-state.ts'
import type { SessionState } from '../../../../shared/model/state/session-state.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

const LIFE = 'life-1'

/** The log as a snapshot in `life`: what the lane reads. */
const snapshotOf = (state: AIState, life = LIFE): StateSnapshot<SessionState> => ({
  state: { ai: state, app: {} },
  index: 1,
  life,
})

/** The step the lane found before it took the claim. */
function dueIn(state: AIState): StepToServe {
  const due = stepToServe(state)
  if (due === null) throw new Error('no step to serve')
  return due
}

/** A claimed step whose state did not move between the first read and the claim. */
const claimed = (state: AIState, attempt = 1): ClaimedStep => ({
  due: dueIn(state),
  life: LIFE,
  now: snapshotOf(state),
  claim: { attempt },
})

/** A session whose first step is due: a user's message, no attempt yet. */
function stepDue(): FakeSession {
  const session = new FakeSession()
  session.push(inputs.message(userMessage('m1')))
  return session
}

/** A session whose first attempt started and vanished (its worker gone), having run `run`. */
function vanishedAttempt(run: (session: FakeSession, generationId: string) => void = () => {}) {
  const session = stepDue()
  const generationId = session.start()
  run(session, generationId)
  return { session, generationId }
}

describe('the takeover rule: what a generation invocation does with the step it claimed', () => {
  describe('run-step: no attempt at the step is running', () => {
    it('runs a due step no attempt started, as the generation of its claim', () => {
      const session = stepDue()
      const decision = takeoverRule(claimed(session.state))
      const requestId = session.state.activeRequestId as string
      expect(decision).toEqual({
        kind: 'run-step',
        serve: { requestId },
        generationId: attemptGenerationId(requestId, 1),
      })
    })

    it('names the generation after the claim attempt: a retry after A2 failed before the opening is a new generation', () => {
      const session = stepDue()
      const decision = takeoverRule(claimed(session.state, 3))
      const requestId = session.state.activeRequestId as string
      expect(decision).toMatchObject({
        kind: 'run-step',
        generationId: attemptGenerationId(requestId, 3),
      })
      expect(attemptGenerationId(requestId, 3)).not.toBe(attemptGenerationId(requestId, 1))
    })
  })

  describe('run-step-again: the vanished attempt recorded no call of a tool A2 runs', () => {
    it('supersedes an attempt that streamed only text, and asks the model again', () => {
      const { session, generationId } = vanishedAttempt((s, gen) => s.text(gen, 'Half an ans'))
      const decision = takeoverRule(claimed(session.state, 2))
      const requestId = session.state.activeGeneration?.requestId as string
      expect(decision).toEqual({
        kind: 'run-step-again',
        serve: { requestId, replaces: generationId },
        generationId: attemptGenerationId(requestId, 2),
      })
    })

    it("does not count a provider-executed call: it is the provider's, and asking again is safe", () => {
      const { session, generationId } = vanishedAttempt((s, gen) =>
        s.callProviderTool(gen, 'ws_1', { answered: true, deferred: false }),
      )
      expect(session.state.tools.some((tool) => tool.generationId === generationId)).toBe(true)
      expect(takeoverRule(claimed(session.state, 2)).kind).toBe('run-step-again')
    })

    it("does not count an earlier step's calls: only the vanished attempt's own", () => {
      const session = stepDue()
      const first = session.start()
      session.callTool(first, 'call_0')
      session.complete(first)
      session.toolResult(first, 'call_0')
      const second = session.start()
      session.text(second, 'The ticket is')
      expect(session.state.tools.map((tool) => tool.generationId)).toEqual([first])
      expect(takeoverRule(claimed(session.state, 2))).toMatchObject({
        kind: 'run-step-again',
        serve: { replaces: second },
      })
    })
  })

  describe('finish-replaced-step: the vanished attempt recorded a call of a tool A2 runs', () => {
    it('ends that step on its call, with no new generation: the tool runs once', () => {
      const { session, generationId } = vanishedAttempt((s, gen) => s.callTool(gen, 'call_0'))
      const requestId = session.state.activeGeneration?.requestId as string
      expect(takeoverRule(claimed(session.state, 2))).toEqual({
        kind: 'finish-replaced-step',
        serve: { requestId, replaces: generationId },
      })
    })

    it('decides on the log under the claim: a call the frozen attempt recorded after the first read counts', () => {
      const { session, generationId } = vanishedAttempt()
      const due = dueIn(session.state)
      // The frozen attempt thaws between the first read and the claim.
      session.callTool(generationId, 'call_0')
      const decision = takeoverRule({
        due,
        life: LIFE,
        now: snapshotOf(session.state),
        claim: { attempt: 2 },
      })
      expect(decision.kind).toBe('finish-replaced-step')
    })
  })

  describe('give-back-claim: the step is no longer the one to serve', () => {
    it('when it is done: the attempt ended it before the claim was taken', () => {
      const { session, generationId } = vanishedAttempt((s, gen) => s.text(gen, 'Done.'))
      const due = dueIn(session.state)
      session.complete(generationId)
      expect(stepToServe(session.state)).toBeNull()
      const now = snapshotOf(session.state)
      expect(takeoverRule({ due, life: LIFE, now, claim: { attempt: 2 } })).toEqual({
        kind: 'give-back-claim',
      })
    })

    it('when the session was erased and started over: another life', () => {
      const session = stepDue()
      const decision = takeoverRule({
        due: dueIn(session.state),
        life: LIFE,
        now: snapshotOf(session.state, 'life-2'),
        claim: { attempt: 2 },
      })
      expect(decision.kind).toBe('give-back-claim')
    })

    it('when the turn has ended', () => {
      const { session } = vanishedAttempt()
      const ended: AIState = { ...session.state, active: null }
      expect(stepToServe(ended)).not.toBeNull()
      const decision = takeoverRule({
        due: dueIn(session.state),
        life: LIFE,
        now: snapshotOf(ended),
        claim: { attempt: 2 },
      })
      expect(decision.kind).toBe('give-back-claim')
    })

    it('when another step is now the one to serve: the attempt ended its step, and the next is due', () => {
      const { session, generationId } = vanishedAttempt((s, gen) => s.callTool(gen, 'call_0'))
      const due = dueIn(session.state)
      session.complete(generationId)
      session.toolResult(generationId, 'call_0')
      expect(dueIn(session.state).requestId).not.toBe(due.requestId)
      const decision = takeoverRule({
        due,
        life: LIFE,
        now: snapshotOf(session.state),
        claim: { attempt: 2 },
      })
      expect(decision.kind).toBe('give-back-claim')
    })

    it('when the turn is pausing now: its running attempt is being aborted, not taken over', () => {
      const { session } = vanishedAttempt((s, gen) => s.callTool(gen, 'call_0'))
      const due = dueIn(session.state)
      session.push(inputs.pause({ when: 'now' }))
      expect(session.state.active?.phase).toBe('pausing')
      const decision = takeoverRule({
        due,
        life: LIFE,
        now: snapshotOf(session.state),
        claim: { attempt: 2 },
      })
      expect(decision.kind).toBe('give-back-claim')
    })
  })
})
