import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import { ENVIRONMENT_VARIABLES } from '../shared/aws/environment-variables.ts'
import { QUEUE_LANES } from '../shared/aws/pipeline-functions.ts'
import type { A2AgentProps } from './a2-agent-props.ts'
import type { AgentFunctions } from './agent-functions.ts'

/** What erasing a session needs, when `erase` grants it; answers whether it did. */
export function grantErasePermissions(
  props: Pick<A2AgentProps, 'erase'>,
  parts: { table: dynamodb.Table; functions: AgentFunctions },
  scheduleArn: string,
): boolean {
  const { functions } = parts
  // Erasing a session (eraseAgentSession): cancel its schedules, then
  // overwrite its events with tombstones (BatchWriteItem's puts, and a
  // PutItem past the end: the lanes append, so they have PutItem), delete
  // every other item of its partition and its ID guards (BatchWriteItem),
  // its head (a conditional DeleteItem) and what lands after (Deletes in a
  // transaction, authorized as DeleteItem). ListSchedules has no resource
  // type, so it takes `*` (Service Authorization Reference, "Actions,
  // resources, and condition keys for Amazon EventBridge Scheduler":
  // https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazoneventbridgescheduler.html).
  // Every function is told whether its role has it (A2_ERASE), so an erase
  // without it fails before its first request instead of half-way.
  const eraseGranted = props.erase === true
  for (const [name, fn] of Object.entries(functions)) {
    const lane = (QUEUE_LANES as readonly string[]).includes(name)
    fn.addEnvironment(ENVIRONMENT_VARIABLES.erase, eraseGranted && lane ? 'granted' : 'not-granted')
  }
  if (eraseGranted) {
    for (const lane of QUEUE_LANES) {
      const laneFunction = functions[lane]
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({ actions: ['scheduler:ListSchedules'], resources: ['*'] }),
      )
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['scheduler:DeleteSchedule'],
          resources: [scheduleArn],
        }),
      )
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'],
          resources: [parts.table.tableArn],
        }),
      )
    }
  }
  return eraseGranted
}
