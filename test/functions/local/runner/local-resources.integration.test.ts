import { CreateScheduleCommand, ListSchedulesCommand } from '@aws-sdk/client-scheduler'
import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs'
import { beforeAll, describe, expect, it } from 'vitest'
import { createLocalResources } from '../../../../functions/local/runner/resources.ts'
import { resetMotoForSuite } from '../../../support/aws.ts'
import { pipelineClients } from '../../../support/pipeline.ts'

// `npm run local` creates what the construct deploys on every start, and a
// start on an endpoint that still holds them (a moto server of your own,
// LocalStack) reuses them: what a session left there before the restart
// (its pending timers, its wake-ups) is still there after it.

beforeAll(async () => {
  await resetMotoForSuite()
})

describe('npm run local started again on an endpoint that keeps its resources', () => {
  it("keeps the schedule group's pending schedules (moto replaces a group created twice, schedules and all) and the queues' messages", async () => {
    const clients = pipelineClients()
    const prefix = `a2-resources-${Date.now().toString(36)}`
    const first = await createLocalResources(clients, { prefix })
    const group = first.environment.timers.scheduleGroup
    // A timer due in more than 15 minutes is a schedule.
    await clients.scheduler.send(
      new CreateScheduleCommand({
        Name: 'a-pending-timer',
        GroupName: group,
        ScheduleExpression: 'at(2099-01-01T00:00:00)',
        FlexibleTimeWindow: { Mode: 'OFF' },
        Target: {
          Arn: first.queues.timers.arn,
          RoleArn: first.environment.timers.schedulerRoleArn,
          Input: '{}',
        },
      }),
    )
    await clients.sqs.send(
      new SendMessageCommand({
        QueueUrl: first.queues.lanes.admission.url,
        MessageBody: '{"sessionId":"s1","lane":"admission"}',
        MessageGroupId: 's1',
        MessageDeduplicationId: 'd1',
      }),
    )

    const again = await createLocalResources(clients, { prefix })
    expect(again.environment).toEqual(first.environment)
    const { Schedules = [] } = await clients.scheduler.send(
      new ListSchedulesCommand({ GroupName: group }),
    )
    expect(Schedules.map((schedule) => schedule.Name)).toEqual(['a-pending-timer'])
    const { Attributes } = await clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: again.queues.lanes.admission.url,
        AttributeNames: ['ApproximateNumberOfMessages'],
      }),
    )
    expect(Attributes?.ApproximateNumberOfMessages).toBe('1')
  })
})
