import { describe, expect, it } from 'vitest'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { type CrashPointsReport, crashPoints } from '../../../shared/testing/crash-points.ts'
import { runConversation } from '../../../shared/testing/crash-run.ts'
import {
  agentDefinition,
  approvedCharge,
  compactedTurns,
  compactingAgent,
  effects,
  reminder,
  reportedCommand,
  steeredCharge,
  steerStopDeny,
} from '../../support/crash-conversations.ts'

// Every crash point of scripted conversations on the memory store: each run
// is killed at one point, recovered by a fresh agent on the same store, and
// checked against the uncrashed run (shared/testing/crash-points.ts). The
// totals are the figures docs/runtime.md reports.

const totals = { points: 0, runs: 0, duplicated: 0, lost: 0, stuck: 0 }
function expectSafe(report: CrashPointsReport): void {
  totals.points += report.points
  totals.runs += report.runs
  totals.duplicated += report.duplicatedEffects
  totals.lost += report.lostEvents
  totals.stuck += report.stuckSessions
  expect(report.failures).toEqual([])
  expect(report.runs).toBe(report.points + 1)
}

describe("the crash kit's conversation", () => {
  it("Given a turn waiting for approval, When the kit's user steers, Then the steer hands over at the step boundary: the approval closes, the charge never runs, and the steering is the next turn", async () => {
    const run = await runConversation({
      agent: agentDefinition,
      effects,
      store: (now) => memoryEventStore({ now }),
      sessionId: 'steered',
      ...steeredCharge,
    })
    expect(run.stuck).toEqual([])
    const completed = run.events.filter((event) => event.type === 'ai.message.completed')
    expect(completed.map((event) => (event.payload as { reason?: string }).reason)).toEqual([
      'handoff',
      'finished',
    ])
    expect(
      run.state.messages.map((message) => [
        message.role,
        message.parts.flatMap((part) =>
          part.type === 'text' ? [part.text] : 'state' in part ? [part.state] : [],
        ),
      ]),
    ).toEqual([
      ['user', ['Charge 5']],
      ['assistant', ['output-denied']],
      ['user', ['Never mind, just say hi']],
      ['assistant', ['Not charged; hi!']],
    ])
    expect(run.effects.payments).toEqual([])
  })
})

describe('a process frozen at a crash point', () => {
  it('stops there while a second process takes its step over, then thaws and writes on: the step is taken over once, nothing is stuck, the charge as without the freeze', async () => {
    const run = {
      agent: agentDefinition,
      effects,
      ...approvedCharge,
      sessionId: 'frozen',
      store: (now: () => number) => memoryEventStore({ now }),
    }
    const baseline = await runConversation(run)
    const point = baseline.labels.indexOf('model read(finish)') + 1
    expect(point).toBeGreaterThan(0)
    const frozen = await runConversation(run, point, { freeze: true })
    expect(frozen.frozen).toBe('model read(finish)')
    expect(frozen.crash).toBeUndefined()
    const superseded = frozen.events.filter((event) => event.type === 'ai.generation.superseded')
    expect(superseded.map((event) => (event.payload as { reason: string }).reason)).toEqual([
      'attempt 2 took over',
    ])
    expect(frozen.stuck).toEqual([])
    expect(frozen.effects.payments).toEqual(baseline.effects.payments)
  })
})

describe('every crash point of a conversation (memory store)', () => {
  it('Given a charge that needs approval, When the process dies at any point, Then the card is charged exactly once and the transcript is the uncrashed one', async () => {
    const report = await crashPoints({ agent: agentDefinition, effects, ...approvedCharge })
    expectSafe(report)
    expect(report.labels).toContain('chargeCard.execute return')
    expect(report.labels).toContain('before store.append(step.completed)')
  }, 120_000)

  it('Given a tool that sets a timer, When the process dies at any point, Then the timer fires once and its message is answered once', async () => {
    const report = await crashPoints({ agent: agentDefinition, effects, ...reminder })
    expectSafe(report)
    // A tool's timer is named within its call (`<idempotency key>/reminder:...`).
    expect(
      report.labels.some((label) => /^before schedule\(id-[\w-]+\/reminder:/.test(label)),
    ).toBe(true)
  }, 120_000)

  it('Given a turn waiting for approval, When the user steers, denies the next charge and stops the third, Then a crash at any point changes nothing', async () => {
    const report = await crashPoints({ agent: agentDefinition, effects, ...steerStopDeny })
    expectSafe(report)
  }, 120_000)

  it("Given a 'report' tool with no idempotency, When the process dies at any point, Then its command ran at most once and an interruption is recorded when it may have partly run", async () => {
    const report = await crashPoints({ agent: agentDefinition, effects, ...reportedCommand })
    expectSafe(report)
    expect(report.labels).toContain('runCommand.execute return')
  }, 120_000)

  it('Given turns that compact the transcript first, When the process dies at any point, Then the turns answer as without a crash', async () => {
    const report = await crashPoints({ agent: compactingAgent, effects, ...compactedTurns })
    expectSafe(report)
    expect(report.labels).toContain('before store.append(compaction.completed)')
  }, 120_000)

  it('Given a charge that needs approval, When the process freezes at any point instead (a takeover settles beside it, then it thaws and writes on), Then the card is charged exactly once and the transcript is the uncrashed one', async () => {
    const report = await crashPoints({
      agent: agentDefinition,
      effects,
      ...approvedCharge,
      freeze: true,
    })
    expect(report.failures).toEqual([])
    expect(report.runs).toBe(2 * report.points + 1)
  }, 120_000)

  it("Given a 'report' tool, When the process freezes at any point, Then its command ran at most once", async () => {
    const report = await crashPoints({
      agent: agentDefinition,
      effects,
      ...reportedCommand,
      freeze: true,
    })
    expect(report.failures).toEqual([])
  }, 120_000)

  it('totals the runs (the figures in docs/runtime.md)', () => {
    console.info(
      `${totals.points} crash points, ${totals.runs} runs, ${totals.duplicated} duplicated effects, ${totals.lost} lost events, ${totals.stuck} stuck sessions`,
    )
    expect(totals.runs).toBeGreaterThan(totals.points)
  })
})
