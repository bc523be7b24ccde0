import { describe, expect, it } from 'vitest'
import { crashPoints } from '../../../../../shared/testing/crash-points.ts'
import {
  agentDefinition,
  approvedCharge,
  effects,
  reportedCommand,
} from '../../../../support/crash-conversations.ts'

// The crash kit through Pi's loop: its streamFn runs on the kit's crashing
// model, so every model read is a crash point, and a recovered process
// re-enters Pi's loop from the log.
const piAgent = {
  ...agentDefinition,
  harness: { ...agentDefinition.harness, type: 'pi' as const },
}

describe('every crash point of a conversation through the Pi harness (memory store)', () => {
  it("Given a charge that needs approval, When the process dies at any point of Pi's loop, Then the card is charged exactly once and the transcript is the uncrashed one", async () => {
    const report = await crashPoints({ agent: piAgent, effects, ...approvedCharge })
    expect(report.failures).toEqual([])
    expect(report.runs).toBe(report.points + 1)
    expect(report.labels).toContain('chargeCard.execute return')
    expect(report.labels.some((label) => label.startsWith('model read('))).toBe(true)
  }, 120_000)

  it("Given a 'report' tool, When the process dies at any point of Pi's loop, Then its command ran at most once", async () => {
    const report = await crashPoints({ agent: piAgent, effects, ...reportedCommand })
    expect(report.failures).toEqual([])
    expect(report.labels).toContain('runCommand.execute return')
  }, 120_000)
})
