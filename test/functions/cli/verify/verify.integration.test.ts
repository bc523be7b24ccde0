import { describe, expect, it } from 'vitest'
import { runVerify } from '../../../../functions/cli/verify/run-verify.ts'
import { eventBridgeScheduler } from '../../../../shared/aws/eventbridge-scheduler.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { pipelineForSuite } from '../../../support/pipeline.ts'

// Every answer streams for about 2.5 s (8 deltas, 250 ms apart), long enough to time its frames.
const script = scriptedModel(() => text('word '.repeat(8), { chunks: 8 }), { chunkDelayMs: 250 })
const suite = pipelineForSuite({
  name: 'verify-target',
  model: script.model,
  stream: { heartbeatMs: 500 },
})

describe('npm run verify against the pipeline on the emulator', () => {
  it('passes the answer, streaming, heartbeat and timer checks, the timer through the Scheduler path', async () => {
    const { timers } = suite().environment
    const report = await runVerify({
      url: suite().pipeline.url,
      headers: [],
      quietMs: 2_000,
      timerDelayMs: 3_000,
      timerGraceMs: 20_000,
      // What verify --stack builds from the stack's outputs.
      scheduler: eventBridgeScheduler({
        scheduler: suite().scheduler,
        sqs: suite().sqs,
        groupName: timers.scheduleGroup,
        roleArn: timers.schedulerRoleArn,
        timerQueueArn: timers.queueArn,
        timerQueueUrl: timers.queueUrl,
        deadLetterQueueArn: timers.deadLetterQueueArn,
        forceScheduler: true,
      }),
    })
    expect(report.results.map((result) => [result.check, result.status, result.detail])).toEqual([
      // The account's checks read the stack's outputs and call Bedrock: not here.
      ['concurrency', 'SKIP', expect.stringMatching(/give --stack/)],
      ['alarms', 'SKIP', expect.stringMatching(/give --stack/)],
      ['models', 'SKIP', expect.stringMatching(/give --stack/)],
      ['answer', 'PASS', expect.any(String)],
      ['streaming', 'PASS', expect.any(String)],
      ['heartbeat', 'PASS', expect.any(String)],
      ['timer', 'PASS', expect.any(String)],
      // The stream function's logs are CloudWatch's: not on the emulator.
      ['closed', 'SKIP', expect.stringMatching(/give --stack/)],
      // So are the router's.
      ['router', 'SKIP', expect.stringMatching(/give --stack/)],
    ])
    // The timer went through a schedule, not an SQS delay.
    expect(suite().pipeline.stats.schedulesFired).toBe(1)
    // Due at a whole second, fired by the runner once due: never early.
    expect(
      report.results.find((result) => result.check === 'timer')?.figures.lateMs,
    ).toBeGreaterThanOrEqual(0)
  })
})
