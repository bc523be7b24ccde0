import { RemovalPolicy, Stack } from 'aws-cdk-lib'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as scheduler from 'aws-cdk-lib/aws-scheduler'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import type { Construct } from 'constructs'

/**
 * The timers' Scheduler side: the agent's schedule group, and the role
 * Scheduler assumes to deliver due timers to the timer queue (and what it
 * cannot deliver to its dead-letter queue).
 */
export function agentTimers(
  scope: Construct,
  queues: { timerQueue: sqs.Queue; schedulerDeadLetterQueue: sqs.Queue },
): { scheduleGroup: scheduler.ScheduleGroup; schedulerRole: iam.Role } {
  const scheduleGroup = new scheduler.ScheduleGroup(scope, 'ScheduleGroup', {
    removalPolicy: RemovalPolicy.DESTROY,
  })
  const schedulerRole = new iam.Role(scope, 'SchedulerRole', {
    // Confused-deputy prevention: aws:SourceArn must be the schedule
    // *group's* ARN, not a schedule or name pattern, or Scheduler cannot
    // assume the role and neither the target nor the Scheduler DLQ is ever
    // written (EventBridge Scheduler user guide, "Confused deputy
    // prevention"; CDK's aws-scheduler-targets does the same).
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
      conditions: {
        StringEquals: {
          'aws:SourceAccount': Stack.of(scope).account,
          'aws:SourceArn': scheduleGroup.scheduleGroupArn,
        },
      },
    }),
    description: 'EventBridge Scheduler delivers due a2 timers to the timer queue',
  })
  queues.timerQueue.grantSendMessages(schedulerRole)
  queues.schedulerDeadLetterQueue.grantSendMessages(schedulerRole)
  return { scheduleGroup, schedulerRole }
}
