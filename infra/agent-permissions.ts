import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import type * as iam from 'aws-cdk-lib/aws-iam'
import type * as lambda from 'aws-cdk-lib/aws-lambda'
import type * as scheduler from 'aws-cdk-lib/aws-scheduler'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import type { Construct } from 'constructs'
import type { QueueLane } from '../shared/aws/pipeline-functions.ts'
import type { A2AgentProps } from './a2-agent-props.ts'
import type { AgentFunctions } from './agent-functions.ts'
import { grantErasePermissions } from './erase-permissions.ts'
import { grantLogPermissions } from './log-permissions.ts'
import { grantRouterPermissions } from './router-permissions.ts'
import { grantTimerPermissions } from './timer-permissions.ts'

/**
 * What each function may do, least privilege per function, and the
 * router's stream source. Answers what cdk-nag's acknowledgements name: the
 * schedule ARN pattern, the functions that carry the agent's bundle, and
 * whether erase was granted.
 */
export function grantAgentPermissions(
  scope: Construct,
  props: Pick<A2AgentProps, 'retention' | 'erase'>,
  parts: {
    table: dynamodb.Table
    functions: AgentFunctions
    laneQueues: Record<QueueLane, sqs.Queue>
    timerQueue: sqs.Queue
    routerFailureQueue: sqs.Queue
    scheduleGroup: scheduler.ScheduleGroup
    schedulerRole: iam.Role
  },
): { scheduleArn: string; agentFunctions: lambda.IFunction[]; eraseGranted: boolean } {
  // In this order: each role's policy lists its statements as they were added.
  grantRouterPermissions(props, parts)
  const agentFunctions = grantLogPermissions(props, parts)
  const scheduleArn = grantTimerPermissions(scope, parts)
  const eraseGranted = grantErasePermissions(props, parts, scheduleArn)
  return { scheduleArn, agentFunctions, eraseGranted }
}
