import {
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler'
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs'
import { sleep } from '../../../shared/timing/sleep.ts'
import type { RunnerContext } from './runner-context.ts'

/** Scheduler, once: fires the due one-time schedules of `scheduleGroup` to the timer queue; true when it fired any. */
export async function fireDueSchedules(
  { stats, logger }: RunnerContext,
  clients: { scheduler: SchedulerClient; sqs: SQSClient },
  { scheduleGroup, timers }: { scheduleGroup: string; timers: { url: string; arn: string } },
): Promise<boolean> {
  const { Schedules = [] } = await clients.scheduler.send(
    new ListSchedulesCommand({ GroupName: scheduleGroup }),
  )
  let fired = false
  for (const summary of Schedules) {
    const schedule = await clients.scheduler.send(
      new GetScheduleCommand({ Name: summary.Name, GroupName: scheduleGroup }),
    )
    const at = /^at\((.+)\)$/.exec(schedule.ScheduleExpression ?? '')?.[1]
    if (!at || Date.parse(`${at}Z`) > Date.now()) continue
    if (schedule.Target?.Arn !== timers.arn) {
      logger.warn(
        `a2 local runner: schedule ${summary.Name} targets ${schedule.Target?.Arn}, not the timer queue`,
      )
      continue
    }
    await clients.sqs.send(
      new SendMessageCommand({ QueueUrl: timers.url, MessageBody: schedule.Target.Input }),
    )
    await clients.scheduler.send(
      new DeleteScheduleCommand({ Name: summary.Name, GroupName: scheduleGroup }),
    )
    stats.schedulesFired++
    fired = true
  }
  if (!fired) await sleep(500)
  return fired
}
