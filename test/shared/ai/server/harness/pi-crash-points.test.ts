import { describe, expect, it } from 'vitest'
import { crashPoints } from '../../../../../shared/testing/crash-points.ts'
import {
  agentDefinition,
  approvedCharge,
  compactedTurns,
  compactingAgent,
  effects,
  reminder,
  reportedCommand,
  steerStopDeny,
} from '../../../../support/crash-conversations.ts'

// The crash kit through Pi's loop: its streamFn runs on the kit's crashing
// model, so every model read is a crash point, and a recovered process
// re-enters Pi's loop from the log. The same five conversations as the
// AI SDK loop's (test/shared/testing/crash-points.test.ts), every point.
const pi = <A extends typeof agentDefinition>(definition: A) => ({
  ...definition,
  harness: { ...definition.harness, type: 'pi' as const },
})

describe('every crash point of a conversation through the Pi harness (memory store)', () => {
  it("Given a charge that needs approval, When the process dies at any point of Pi's loop, Then the card is charged exactly once and the transcript is the uncrashed one", async () => {
    const report = await crashPoints({ agent: pi(agentDefinition), effects, ...approvedCharge })
    expect(report.failures).toEqual([])
    expect(report.runs).toBe(report.points + 1)
    expect(report.labels).toContain('chargeCard.execute return')
    expect(report.labels.some((label) => label.startsWith('model read('))).toBe(true)
  }, 120_000)

  it("Given a 'report' tool, When the process dies at any point of Pi's loop, Then its command ran at most once", async () => {
    const report = await crashPoints({ agent: pi(agentDefinition), effects, ...reportedCommand })
    expect(report.failures).toEqual([])
    expect(report.labels).toContain('runCommand.execute return')
  }, 120_000)

  it("Given a tool that sets a timer, When the process dies at any point of Pi's loop, Then the timer fires once and its message is answered once", async () => {
    const report = await crashPoints({ agent: pi(agentDefinition), effects, ...reminder })
    expect(report.failures).toEqual([])
    expect(report.runs).toBe(report.points + 1)
  }, 120_000)

  it("Given a steer while an approval waits, a denial and a Stop, When the process dies at any point of Pi's loop, Then nothing changes", async () => {
    const report = await crashPoints({ agent: pi(agentDefinition), effects, ...steerStopDeny })
    expect(report.failures).toEqual([])
    expect(report.runs).toBe(report.points + 1)
  }, 120_000)

  it("Given turns that compact first, When the process dies at any point of Pi's loop, Then the turns answer as without a crash", async () => {
    const report = await crashPoints({ agent: pi(compactingAgent), effects, ...compactedTurns })
    expect(report.failures).toEqual([])
    expect(report.labels).toContain('before store.append(compaction.completed)')
  }, 120_000)
})
