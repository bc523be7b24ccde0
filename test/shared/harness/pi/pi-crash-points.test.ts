import { describe, expect, it } from 'vitest'
import { piHarness } from '../../../../shared/harness/pi/index.ts'
import { type CrashPointsOptions, crashPoints } from '../../../../shared/testing/crash-points.ts'
import {
  agentDefinition,
  approvedCharge,
  compactedTurns,
  compactingAgent,
  effects,
  reminder,
  reportedCommand,
  steerStopDeny,
} from '../../../support/crash-conversations.ts'

// The crash kit through Pi's loop: its streamFn runs on the kit's crashing
// model, so every model read is a crash point, and a recovered process
// re-enters Pi's loop from the log. The same five conversations as the
// AI SDK loop's (test/shared/testing/crash-points.test.ts): the approved
// charge and the 'report' tool at every point in `npm test`, the timer, the
// steer and compaction at a sample of points there, every point with
// `npm run test:crash-harnesses`.
const matrix = process.env.A2_CRASH_MATRIX === 'all'
const sampled: CrashPointsOptions['points'] = matrix ? 'all' : { sample: 12 }
const pi = <A extends typeof agentDefinition>(definition: A) => {
  const { type: _aiSdk, ...settings } = definition.harness
  return { ...definition, harness: piHarness(settings) }
}

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
    const report = await crashPoints({
      agent: pi(agentDefinition),
      effects,
      ...reminder,
      points: sampled,
    })
    expect(report.failures).toEqual([])
    expect(report.runs).toBe(matrix ? report.points + 1 : 13)
  }, 120_000)

  it("Given a steer while an approval waits, a denial and a Stop, When the process dies at any point of Pi's loop, Then nothing changes", async () => {
    const report = await crashPoints({
      agent: pi(agentDefinition),
      effects,
      ...steerStopDeny,
      points: sampled,
    })
    expect(report.failures).toEqual([])
    expect(report.runs).toBe(matrix ? report.points + 1 : 13)
  }, 120_000)

  it("Given turns that compact first, When the process dies at any point of Pi's loop, Then the turns answer as without a crash", async () => {
    const report = await crashPoints({
      agent: pi(compactingAgent),
      effects,
      ...compactedTurns,
      points: sampled,
    })
    expect(report.failures).toEqual([])
    expect(report.labels).toContain('before store.append(compaction.completed)')
  }, 120_000)
})
