import {
  CreateScheduleGroupCommand,
  GetScheduleCommand,
  SchedulerClient,
} from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import { eventBridgeScheduler, scheduleName } from '../../../shared/aws/eventbridge-scheduler.ts'
import type { Timer } from '../../../shared/runtime/scheduler.ts'
import { scriptedModel } from '../../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../../support/agent-log.ts'
import { awsClientConfig, resetMotoForSuite } from '../../support/aws.ts'
import { fakeClient } from '../../support/fake-clients.ts'

const GROUP = `a2-timers-${Date.now().toString(36)}`
let client: SchedulerClient

beforeAll(async () => {
  await resetMotoForSuite()
  client = new SchedulerClient(awsClientConfig())
  await client.send(new CreateScheduleGroupCommand({ Name: GROUP }))
})
afterAll(() => client.destroy())

const timer = (sessionId: string, name: string): Timer => ({
  sessionId,
  name,
  // Past the 15 minutes SQS can delay: a schedule.
  at: Date.now() + 2 * 3600_000,
  events: [{ id: `${name}-event`, type: 'note', payload: {} }],
})

function adapter() {
  return eventBridgeScheduler({
    scheduler: client,
    sqs: fakeClient().client,
    groupName: GROUP,
    roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    timerQueueArn: 'arn:aws:sqs:us-east-1:123456789012:timers',
    timerQueueUrl: 'https://sqs/timers',
    deadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:scheduler-dlq',
  })
}

const exists = (t: Timer) =>
  client.send(new GetScheduleCommand({ Name: scheduleName(t), GroupName: GROUP })).then(
    () => true,
    (error: Error) => {
      if (error.name === 'ResourceNotFoundException') return false
      throw error
    },
  )

describe('the EventBridge Scheduler adapter on moto', () => {
  it("cancels the session's pending schedules and no other session's; again, it cancels nothing", async () => {
    const scheduler = adapter()
    const mine = [timer('erased', 'reminder:1'), timer('erased', 'follow-up')]
    const theirs = timer('kept', 'reminder:1')
    for (const t of [...mine, theirs]) await scheduler.schedule(t)
    expect(await Promise.all([...mine, theirs].map(exists))).toEqual([true, true, true])

    expect(await scheduler.cancel('erased')).toBe(2)
    expect(await Promise.all([...mine, theirs].map(exists))).toEqual([false, false, true])
    expect(await scheduler.cancel('erased')).toBe(0)
    expect(await exists(theirs)).toBe(true)
  })

  it("session.erase() deletes the session's pending schedule and counts it in the receipt", async () => {
    const a = track(
      agent({ name: 'reminders', model: scriptedModel([]).model, scheduler: adapter() }),
    )
    await a
      .session('to-erase')
      .schedule('reminder', { delay: '2h' }, ...inputs.message(userMessage('r1', 'Reminder')))
    const set = { sessionId: 'to-erase', name: 'reminder' } as Timer
    expect(await exists(set)).toBe(true)

    expect(await a.session('to-erase').erase()).toMatchObject({ sessionId: 'to-erase', timers: 1 })
    expect(await exists(set)).toBe(false)
  })
})
