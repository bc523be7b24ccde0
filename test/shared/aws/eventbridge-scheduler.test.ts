import { ConflictException, ResourceNotFoundException } from '@aws-sdk/client-scheduler'
import { describe, expect, it } from 'vitest'
import {
  atExpression,
  eventBridgeScheduler,
  scheduleName,
  sessionSchedulePrefix,
} from '../../../shared/aws/eventbridge-scheduler.ts'
import { parseTimerMessage } from '../../../shared/aws/timer-message.ts'
import { TimerConflictError } from '../../../shared/runtime/in-process-scheduler.ts'
import { fakeClient, type SentCommand } from '../../support/fake-clients.ts'

const NOW = Date.parse('2026-11-29T12:00:00.000Z')
const timer = (at: number, name = 'reminder:1') => ({
  sessionId: 's1',
  name,
  at,
  events: [
    {
      id: 'a2.ai:timer:reminder:1:0',
      type: 'ai.control.requested',
      payload: { action: 'message' },
    },
  ],
})

function setup(
  schedulerAnswer?: (command: SentCommand) => unknown,
  { forceScheduler }: { forceScheduler?: boolean } = {},
) {
  const scheduler = fakeClient(schedulerAnswer)
  const sqs = fakeClient()
  const adapter = eventBridgeScheduler({
    scheduler: scheduler.client,
    sqs: sqs.client,
    groupName: 'agent-group',
    roleArn: 'arn:aws:iam::123456789012:role/scheduler',
    timerQueueArn: 'arn:aws:sqs:us-east-1:123456789012:timers',
    timerQueueUrl: 'https://sqs/timers',
    deadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:scheduler-dlq',
    now: () => NOW,
    ...(forceScheduler === undefined ? {} : { forceScheduler }),
  })
  return { adapter, scheduler, sqs }
}

describe('the EventBridge Scheduler adapter', () => {
  it('sends a timer due within 15 minutes as a delayed SQS message (precise to the second)', async () => {
    const { adapter, scheduler, sqs } = setup()
    await adapter.schedule(timer(NOW + 90_500))
    expect(scheduler.sent).toEqual([])
    expect(sqs.sent).toHaveLength(1)
    expect(sqs.sent[0]?.input).toMatchObject({ QueueUrl: 'https://sqs/timers', DelaySeconds: 91 })
    expect(parseTimerMessage(sqs.sent[0]?.input.MessageBody)).toEqual(timer(NOW + 90_500))
  })

  it('sends a timer already due with no delay', async () => {
    const { adapter, sqs } = setup()
    await adapter.schedule(timer(NOW - 5_000))
    expect(sqs.sent[0]?.input.DelaySeconds).toBe(0)
  })

  it('creates a one-time, self-deleting schedule for later timers, aimed at the timer queue with a DLQ', async () => {
    const { adapter, scheduler, sqs } = setup()
    const at = NOW + 2 * 3600_000 + 250
    await adapter.schedule(timer(at))
    expect(sqs.sent).toEqual([])
    expect(scheduler.sent).toHaveLength(1)
    const input = scheduler.sent[0]?.input
    expect(input).toMatchObject({
      Name: scheduleName(timer(at)),
      GroupName: 'agent-group',
      ScheduleExpression: 'at(2026-11-29T14:00:01)',
      ScheduleExpressionTimezone: 'UTC',
      FlexibleTimeWindow: { Mode: 'OFF' },
      ActionAfterCompletion: 'DELETE',
      Target: {
        Arn: 'arn:aws:sqs:us-east-1:123456789012:timers',
        RoleArn: 'arn:aws:iam::123456789012:role/scheduler',
        DeadLetterConfig: { Arn: 'arn:aws:sqs:us-east-1:123456789012:scheduler-dlq' },
      },
    })
    expect(parseTimerMessage(input.Target.Input)).toEqual(timer(at))
  })

  it('sends a timer due within 15 minutes through Scheduler too when forceScheduler is set (verify proves that path)', async () => {
    const { adapter, scheduler, sqs } = setup(undefined, { forceScheduler: true })
    await adapter.schedule(timer(NOW + 2 * 60_000))
    expect(sqs.sent).toEqual([])
    expect(scheduler.sent.map((command) => command.name)).toEqual(['CreateScheduleCommand'])
    expect(scheduler.sent[0]?.input).toMatchObject({
      GroupName: 'agent-group',
      ScheduleExpression: 'at(2026-11-29T12:02:00)',
      Target: { Arn: 'arn:aws:sqs:us-east-1:123456789012:timers' },
    })
  })

  it('derives a valid schedule name (64 characters at most) from the session and timer name only', () => {
    const name = scheduleName({ sessionId: 's1', name: 'x'.repeat(500) })
    expect(name).toMatch(/^[0-9a-zA-Z-_.]{1,64}$/)
    expect(scheduleName({ sessionId: 's1', name: 'a' })).toBe(
      scheduleName({ sessionId: 's1', name: 'a' }),
    )
    expect(scheduleName({ sessionId: 's1', name: 'a' })).not.toBe(
      scheduleName({ sessionId: 's2', name: 'a' }),
    )
  })

  it("starts every schedule name of a session with the session's prefix, which no other session's names start with", () => {
    const name = scheduleName({ sessionId: 's1', name: 'x'.repeat(500) })
    expect(name).toHaveLength(64)
    expect(name.startsWith(sessionSchedulePrefix('s1'))).toBe(true)
    expect(
      scheduleName({ sessionId: 's1', name: 'b' }).startsWith(sessionSchedulePrefix('s1')),
    ).toBe(true)
    expect(name.startsWith(sessionSchedulePrefix('s2'))).toBe(false)
  })

  it("cancels a session's schedules: lists them by its prefix (every page) and deletes each by name; one already gone counts nothing", async () => {
    const { adapter, scheduler } = setup((command) => {
      if (command.constructor.name === 'ListSchedulesCommand')
        return command.input.NextToken
          ? { Schedules: [{ Name: 'second' }] }
          : { Schedules: [{ Name: 'first' }], NextToken: 'page-2' }
      if (command.input.Name === 'second')
        throw new ResourceNotFoundException({ message: 'gone', Message: 'gone', $metadata: {} })
      return {}
    })
    expect(await adapter.cancel('s1')).toBe(1)
    expect(scheduler.sent).toEqual([
      {
        name: 'ListSchedulesCommand',
        input: { GroupName: 'agent-group', NamePrefix: sessionSchedulePrefix('s1') },
      },
      {
        name: 'ListSchedulesCommand',
        input: {
          GroupName: 'agent-group',
          NamePrefix: sessionSchedulePrefix('s1'),
          NextToken: 'page-2',
        },
      },
      { name: 'DeleteScheduleCommand', input: { Name: 'first', GroupName: 'agent-group' } },
      { name: 'DeleteScheduleCommand', input: { Name: 'second', GroupName: 'agent-group' } },
    ])
  })

  it('treats an existing schedule with the same time as success, and another time as a TimerConflictError', async () => {
    const at = NOW + 3600_000
    const same = setup((command) => {
      if (command.constructor.name === 'CreateScheduleCommand')
        throw new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} })
      return { ScheduleExpression: atExpression(at) }
    })
    await expect(same.adapter.schedule(timer(at))).resolves.toBeUndefined()
    expect(same.scheduler.sent.map((command) => command.name)).toEqual([
      'CreateScheduleCommand',
      'GetScheduleCommand',
    ])

    const other = setup((command) => {
      if (command.constructor.name === 'CreateScheduleCommand')
        throw new ConflictException({ message: 'exists', Message: 'exists', $metadata: {} })
      return { ScheduleExpression: atExpression(at + 3600_000) }
    })
    await expect(other.adapter.schedule(timer(at))).rejects.toBeInstanceOf(TimerConflictError)
  })

  it('refuses a timer whose events do not fit a schedule (256 KB)', async () => {
    const { adapter } = setup()
    const big = {
      ...timer(NOW + 3600_000),
      events: [{ id: 'e', type: 't', payload: 'x'.repeat(300_000) }],
    }
    await expect(adapter.schedule(big)).rejects.toMatchObject({ code: 'TIMER_TOO_LARGE' })
  })
})
