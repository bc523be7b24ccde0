import { Stack } from 'aws-cdk-lib'
import * as iam from 'aws-cdk-lib/aws-iam'
import type * as scheduler from 'aws-cdk-lib/aws-scheduler'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import type { Construct } from 'constructs'
import { QUEUE_LANES } from '../shared/aws/pipeline-functions.ts'
import type { AgentFunctions } from './agent-functions.ts'

/**
 * The lanes' timers: the timer queue (a short delay) and one-time
 * schedules of the agent's group, passing the scheduler's role. Answers
 * the schedules' ARN pattern.
 */
export function grantTimerPermissions(
  scope: Construct,
  parts: {
    functions: AgentFunctions
    timerQueue: sqs.Queue
    scheduleGroup: scheduler.ScheduleGroup
    schedulerRole: iam.Role
  },
): string {
  const { functions } = parts
  const scheduleArn = Stack.of(scope).formatArn({
    service: 'scheduler',
    resource: 'schedule',
    resourceName: `${parts.scheduleGroup.scheduleGroupName}/*`,
  })
  for (const lane of QUEUE_LANES) {
    const laneFunction = functions[lane]
    parts.timerQueue.grantSendMessages(laneFunction)
    laneFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['scheduler:CreateSchedule', 'scheduler:GetSchedule'],
        resources: [scheduleArn],
      }),
    )
    laneFunction.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [parts.schedulerRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
      }),
    )
  }
  return scheduleArn
}
