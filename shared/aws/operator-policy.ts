/**
 * What each `a2-aws` data command asks of its caller's credentials, as IAM
 * actions: on the agent's table, and for `erase --schedule-group` on the
 * agent's Scheduler group. One list, read by the construct's grants
 * (`A2Agent.grantErase()` and the rest), by the commands' own check before
 * their first write, and pinned against the requests each command makes on
 * moto (test/infra/operator-grants.integration.test.ts).
 * @internal Exported for its test (knip --production).
 */
export const OPERATOR_COMMANDS = ['inspect', 'export', 'import', 'erase'] as const
export type OperatorCommand = (typeof OPERATOR_COMMANDS)[number]

const READS = ['dynamodb:GetItem', 'dynamodb:Query'] as const

/** The table actions of each command. */
export const OPERATOR_TABLE_ACTIONS: Record<OperatorCommand, readonly string[]> = {
  // The events, the head and the claims.
  inspect: READS,
  // The events.
  export: ['dynamodb:Query'],
  // An append of runs of events: transactions of puts, the head's update
  // and condition checks (authorized as PutItem, UpdateItem and
  // ConditionCheckItem), or a lone conditional PutItem; a run met by its
  // own ID guards (an import run again after a failure) reads them and the
  // events they name (BatchGetItem, Query) to tell a replay from a
  // duplicate. The same table actions as the agent's appending functions.
  import: [
    ...READS,
    'dynamodb:BatchGetItem',
    'dynamodb:PutItem',
    'dynamodb:UpdateItem',
    'dynamodb:ConditionCheckItem',
  ],
  // The session's partition and its ID guards read, the seal past the log's
  // end (PutItem), tombstones and deletes (BatchWriteItem), the head
  // (DeleteItem), and what landed after it (Deletes in a transaction beside
  // a ConditionCheck).
  erase: [
    ...READS,
    'dynamodb:BatchGetItem',
    'dynamodb:PutItem',
    'dynamodb:BatchWriteItem',
    'dynamodb:DeleteItem',
    'dynamodb:ConditionCheckItem',
  ],
}

/**
 * `erase --schedule-group`'s Scheduler actions: ListSchedules takes no
 * resource (`*`), DeleteSchedule the group's schedules
 * (`arn:aws:scheduler:<region>:<account>:schedule/<group>/*`).
 */
export const ERASE_SCHEDULE_ACTIONS = {
  anyResource: ['scheduler:ListSchedules'],
  groupSchedules: ['scheduler:DeleteSchedule'],
} as const
