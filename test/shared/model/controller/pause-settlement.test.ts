import { describe, expect, it } from 'vitest'
import { inputs } from '../../../../shared/ai.ts'
import {
  cutShortAcknowledgement,
  pauseSettlement,
  pausingClaimKeys,
} from '../../../../shared/model/controller/pause-settlement.ts'
import { toolClaimKey } from '../../../../shared/model/ids/claim-keys.ts'
import { FakeSession, userMessage } from '../../../support/fake-session.ts'

const TTL = 1_000

/** A turn paused now with two calls running: `call-1` and `call-2`. */
function pausing() {
  const session = new FakeSession()
  session.push(inputs.message(userMessage('m1')))
  const generation = session.start()
  session.callTool(generation, 'call-1')
  session.callTool(generation, 'call-2')
  session.push(inputs.pause({ when: 'now' }))
  const active = session.state.active
  if (active?.phase !== 'pausing') throw new Error(`not pausing: ${active?.phase}`)
  const key = (toolCallId: string) => toolClaimKey({ generationId: generation, toolCallId })
  return { session, since: active.pausingSince ?? 0, cause: active.pausedBy, key }
}

const interruptedCalls = (events: { payload: unknown }[]) =>
  events.map((event) => (event.payload as { toolCallId: string }).toolCallId)

describe("Pause now's settlement plan", () => {
  it('reads the claim of each running call of the pausing turn', () => {
    const { session, key } = pausing()
    expect(pausingClaimKeys(session.state)).toEqual([key('call-1'), key('call-2')])
  })

  it('settles a call nobody claimed at once, and stops a live worker with a timer at the deadline', () => {
    const { session, since, key } = pausing()
    const claims = new Map([[key('call-2'), { expiresAt: since + 500 }]])
    const plan = pauseSettlement(session.state, claims, { now: since + 10, claimTtlMs: TTL })
    expect(interruptedCalls(plan.settle)).toEqual(['call-1'])
    expect(plan.revoke).toEqual([key('call-2')])
    expect(plan.timers).toEqual([
      expect.objectContaining({
        at: since + TTL,
        events: [expect.objectContaining({ type: 'ai.tool.interrupted' })],
      }),
    ])
  })

  it('waits for the deadline for a claim that ran out (its worker may still be running), then settles it', () => {
    const { session, since, key } = pausing()
    const claims = new Map([
      [key('call-1'), { expiresAt: since + 5 }],
      [key('call-2'), { expiresAt: since + 5 }],
    ])
    const before = pauseSettlement(session.state, claims, { now: since + 100, claimTtlMs: TTL })
    expect(before).toMatchObject({ settle: [], revoke: [] })
    expect(before.timers).toHaveLength(2)
    const after = pauseSettlement(session.state, claims, { now: since + TTL, claimTtlMs: TTL })
    expect(interruptedCalls(after.settle)).toEqual(['call-1', 'call-2'])
    expect(after.timers).toEqual([])
  })

  it('writes the same fact as the timer and the worker: one event ID whoever records it', () => {
    const { session, since, key } = pausing()
    const live = new Map([[key('call-1'), { expiresAt: since + TTL }]])
    const timer = pauseSettlement(session.state, live, { now: since, claimTtlMs: TTL }).timers[0]
    const now = pauseSettlement(session.state, new Map(), { now: since, claimTtlMs: TTL }).settle[0]
    const worker = cutShortAcknowledgement(session.state, {
      generationId: session.state.tools[0]?.generationId as string,
      toolCallId: 'call-1',
    })
    expect(timer?.events[0]?.id).toBe(now?.id)
    expect(worker?.id).toBe(now?.id)
  })

  it('plans nothing and acknowledges nothing once the turn is no longer pausing', () => {
    const { session } = pausing()
    const turnId = session.state.active?.turnId as string
    session.push(inputs.stop({ turnId, frontier: session.index }))
    expect(session.state.active?.phase).not.toBe('pausing')
    expect(pauseSettlement(session.state, new Map(), { now: 0, claimTtlMs: TTL })).toEqual({
      revoke: [],
      timers: [],
      settle: [],
    })
    expect(
      cutShortAcknowledgement(session.state, { generationId: 'g', toolCallId: 'call-1' }),
    ).toBeUndefined()
  })
})
