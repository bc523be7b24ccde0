import * as iam from 'aws-cdk-lib/aws-iam'
import {
  ERASE_SCHEDULE_ACTIONS,
  OPERATOR_TABLE_ACTIONS,
  type OperatorCommand,
} from '../shared/aws/operator-policy.ts'

/**
 * What an `a2-aws` data command (`inspect`, `export`, `import`, `erase`)
 * needs, granted to `grantee`: its actions on the agent's table only, and
 * for `erase` the Scheduler actions of `--schedule-group` on the agent's
 * group (ListSchedules has no resource type: `*`).
 *
 * @example
 * operatorGrant(oncall, 'erase', { tableArn: agent.table.tableArn, scheduleArn })
 */
export function operatorGrant(
  grantee: iam.IGrantable,
  command: OperatorCommand,
  resources: { tableArn: string; scheduleArn: string },
): iam.Grant {
  const table = iam.Grant.addToPrincipal({
    grantee,
    actions: [...OPERATOR_TABLE_ACTIONS[command]],
    resourceArns: [resources.tableArn],
  })
  if (command !== 'erase') return table
  return table
    .combine(
      iam.Grant.addToPrincipal({
        grantee,
        actions: [...ERASE_SCHEDULE_ACTIONS.anyResource],
        resourceArns: ['*'],
      }),
    )
    .combine(
      iam.Grant.addToPrincipal({
        grantee,
        actions: [...ERASE_SCHEDULE_ACTIONS.groupSchedules],
        resourceArns: [resources.scheduleArn],
      }),
    )
}
