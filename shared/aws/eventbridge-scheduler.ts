import {
  CreateScheduleCommand,
  GetScheduleCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler'
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { idHash } from '../log/id-hash.ts'
import { TimerConflictError } from '../runtime/in-process-scheduler.ts'
import type { Scheduler, Timer } from '../runtime/scheduler.ts'
import { isAwsError } from '../stores/dynamodb/aws-error.ts'
import { PipelineError } from './errors.ts'
import { timerMessageBody } from './timer-message.ts'

/** SQS delays a message by at most 15 minutes; later timers go to EventBridge Scheduler. */
export const MAX_SQS_DELAY_MS = 15 * 60 * 1000
/** A schedule target's `Input` is limited to 256 KB. */
const MAX_SCHEDULE_INPUT_BYTES = 256 * 1024
/** Schedule names: 1 to 64 of [0-9a-zA-Z-_.]. */
const SCHEDULE_NAME_PREFIX = 'a2-'

export interface EventBridgeSchedulerOptions {
  scheduler: SchedulerClient
  sqs: SQSClient
  /** The schedule group the construct creates. */
  groupName: string
  /** The role Scheduler assumes to send to the timer queue. */
  roleArn: string
  /** The standard queue due timers arrive on (its consumer appends their events). */
  timerQueueArn: string
  timerQueueUrl: string
  /** Where Scheduler puts a firing it could not deliver. */
  deadLetterQueueArn: string
  /**
   * Send every timer through Scheduler, however soon it is due (default
   * false). `npm run verify` uses it to prove the Scheduler path (trust
   * policy, target, role) on a 2-minute timer instead of a 15-minute one.
   */
  forceScheduler?: boolean
  now?: () => number
}

/**
 * Timers on AWS. A timer due within 15 minutes is an SQS message with a
 * delay (precise to about a second); a later one is an EventBridge Scheduler
 * one-time schedule (`at(...)`, fires within a minute of its time) that
 * deletes itself after it ran. Either way a message reaches the timer queue,
 * whose handler appends the events; their IDs are fixed by the timer, so a
 * twice-delivered timer appends once.
 *
 * Idempotency: a schedule's name is derived from the session and timer name,
 * so setting the same timer again finds it (`ConflictException`) and succeeds
 * when it has the same time, or throws `TimerConflictError` when not. The SQS
 * path cannot see earlier messages: setting one name twice with different
 * times there sends both.
 */
export function eventBridgeScheduler(options: EventBridgeSchedulerOptions): Scheduler {
  const now = options.now ?? Date.now
  return {
    async schedule(timer) {
      const body = timerMessageBody(timer)
      const wait = timer.at - now()
      if (wait < MAX_SQS_DELAY_MS && !options.forceScheduler) {
        await options.sqs.send(
          new SendMessageCommand({
            QueueUrl: options.timerQueueUrl,
            MessageBody: body,
            DelaySeconds: Math.min(900, Math.max(0, Math.ceil(wait / 1000))),
          }),
        )
        return
      }
      if (Buffer.byteLength(body) > MAX_SCHEDULE_INPUT_BYTES) {
        throw new PipelineError(
          'TIMER_TOO_LARGE',
          `Timer "${timer.name}" carries ${Buffer.byteLength(body)} bytes of events; a schedule holds at most ${MAX_SCHEDULE_INPUT_BYTES}`,
        )
      }
      const name = scheduleName(timer)
      const expression = atExpression(timer.at)
      try {
        await options.scheduler.send(
          new CreateScheduleCommand({
            Name: name,
            GroupName: options.groupName,
            ScheduleExpression: expression,
            ScheduleExpressionTimezone: 'UTC',
            FlexibleTimeWindow: { Mode: 'OFF' },
            ActionAfterCompletion: 'DELETE',
            Description: `a2 timer "${timer.name.slice(0, 400)}"`,
            Target: {
              Arn: options.timerQueueArn,
              RoleArn: options.roleArn,
              Input: body,
              DeadLetterConfig: { Arn: options.deadLetterQueueArn },
            },
          }),
        )
      } catch (error) {
        if (!isAwsError(error, 'ConflictException')) throw error
        const existing = await options.scheduler.send(
          new GetScheduleCommand({ Name: name, GroupName: options.groupName }),
        )
        if (existing.ScheduleExpression !== expression) {
          throw new TimerConflictError(timer, timeOfAtExpression(existing.ScheduleExpression))
        }
      }
    },
  }
}

/**
 * A schedule name that is the same for the same session and timer name, and
 * fits Scheduler's 64 characters: `a2-` and 60 hex digits of a SHA-256.
 */
export function scheduleName(timer: Pick<Timer, 'sessionId' | 'name'>): string {
  const digest = idHash(JSON.stringify([timer.sessionId, timer.name]), 'hex')
  return `${SCHEDULE_NAME_PREFIX}${digest.slice(0, 64 - SCHEDULE_NAME_PREFIX.length)}`
}

/** `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the second so it never fires early. */
export function atExpression(at: number): string {
  const seconds = new Date(Math.ceil(at / 1000) * 1000).toISOString().slice(0, 19)
  return `at(${seconds})`
}

function timeOfAtExpression(expression: string | undefined): number {
  const match = /^at\((.+)\)$/.exec(expression ?? '')
  return match ? Date.parse(`${match[1]}Z`) : Number.NaN
}
