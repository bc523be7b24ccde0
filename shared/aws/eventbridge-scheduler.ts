import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
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
const MAX_SQS_DELAY_MS = 15 * 60 * 1000
/** A schedule target's `Input` is limited to 256 KB. */
const MAX_SCHEDULE_INPUT_BYTES = 256 * 1024
/** Schedule names: 1 to 64 of [0-9a-zA-Z-_.]. */
const SCHEDULE_NAME_PREFIX = 'a2-'
/** Hex digits of the session's digest, then of the timer's: `a2-` + 30 + `-` + 30 = 64. */
const DIGEST_DIGITS = 30

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
 *
 * Cancelling (an erase): a schedule's name starts with a digest of its
 * session, so `cancel` lists the session's schedules in the group by that
 * prefix and deletes them; one already gone (it fired, or a concurrent
 * cancel deleted it) is done. An SQS-delayed timer (due within 15 minutes)
 * cannot be withdrawn: it still fires.
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

    cancel: (sessionId) => cancelSessionSchedules(options.scheduler, options.groupName, sessionId),
  }
}

/**
 * Deletes the session's schedules in the group, found by their names'
 * prefix, and answers how many it deleted; one already gone (it fired, or a
 * concurrent cancel deleted it) counts nothing. The adapter's `cancel`, and
 * the erase command's with `--schedule-group`.
 */
export async function cancelSessionSchedules(
  scheduler: SchedulerClient,
  groupName: string,
  sessionId: string,
): Promise<number> {
  const names: string[] = []
  let token: string | undefined
  do {
    const page = await scheduler.send(
      new ListSchedulesCommand({
        GroupName: groupName,
        NamePrefix: sessionSchedulePrefix(sessionId),
        ...(token ? { NextToken: token } : {}),
      }),
    )
    for (const schedule of page.Schedules ?? [])
      if (schedule.Name !== undefined) names.push(schedule.Name)
    token = page.NextToken
  } while (token)
  let cancelled = 0
  for (const name of names) {
    try {
      await scheduler.send(new DeleteScheduleCommand({ Name: name, GroupName: groupName }))
      cancelled++
    } catch (error) {
      if (!isAwsError(error, 'ResourceNotFoundException')) throw error
    }
  }
  return cancelled
}

/**
 * A schedule name that is the same for the same session and timer name, and
 * fits Scheduler's 64 characters: `a2-`, 30 hex digits of a SHA-256 of the
 * session (what `cancel` lists by), `-`, and 30 of the session and name.
 * @internal Exported for its tests (knip --production).
 */
export function scheduleName(timer: Pick<Timer, 'sessionId' | 'name'>): string {
  const digest = idHash(JSON.stringify([timer.sessionId, timer.name]), 'hex')
  return `${sessionSchedulePrefix(timer.sessionId)}${digest.slice(0, DIGEST_DIGITS)}`
}

/** The start of the names of every schedule of the session. */
export function sessionSchedulePrefix(sessionId: string): string {
  const digest = idHash(JSON.stringify([sessionId]), 'hex')
  return `${SCHEDULE_NAME_PREFIX}${digest.slice(0, DIGEST_DIGITS)}-`
}

/**
 * `at(yyyy-mm-ddThh:mm:ss)` in UTC, rounded up to the second so it never fires early.
 * @internal Exported for its test (knip --production).
 */
export function atExpression(at: number): string {
  const seconds = new Date(Math.ceil(at / 1000) * 1000).toISOString().slice(0, 19)
  return `at(${seconds})`
}

function timeOfAtExpression(expression: string | undefined): number {
  const match = /^at\((.+)\)$/.exec(expression ?? '')
  return match ? Date.parse(`${match[1]}Z`) : Number.NaN
}
