import { describe, expect, it } from 'vitest'
import { awsEndpoint, resetMotoForSuite } from '../support/aws.ts'
import { onLocalPipeline } from './pipeline-target.ts'
import { describeReport, runSoak } from './soak.ts'

// The pipeline soak, sampled: a few sessions on DynamoDB and SQS FIFO on
// moto through the local runner, their containers killed at random.
// `npm run soak -- --pipeline --kills --sessions 50` runs the full one.

const seed = Number(process.env.A2_SOAK_SEED ?? 20261201)

describe('the soak on the local pipeline with container kills (sampled)', () => {
  it('4 sessions of 2 turns, containers killed at random: every turn ends and every invariant holds', async () => {
    await resetMotoForSuite()
    const report = await runSoak({
      sessions: 4,
      turns: 2,
      seed,
      pollMs: 1_000,
      // A loaded 2-core machine makes moto slow: a turn may take a minute.
      turnTimeoutMs: 150_000,
      target: onLocalPipeline({ seed, killEveryMs: 1_500, endpoint: awsEndpoint() }),
    })
    const summary = describeReport(report)
    expect(report.failures, summary).toEqual([])
    expect(report.target.kills, summary).toBeGreaterThan(0)
  }, 400_000)
})
