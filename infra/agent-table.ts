import { RemovalPolicy } from 'aws-cdk-lib'
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import type { Construct } from 'constructs'
import { A2Error } from '../shared/log/error-brand.ts'
import { PK, SK, TTL_ATTRIBUTE } from '../shared/stores/dynamodb/table-keys.ts'
import type { A2AgentProps } from './a2-agent-props.ts'

declare module '../shared/log/error-brand.ts' {
  interface A2Codes {
    /** A2Agent's `removalPolicy` is one CloudFormation cannot apply to a DynamoDB table (SNAPSHOT). */
    UNSUPPORTED_REMOVAL_POLICY: undefined
  }
}

/**
 * `removalPolicy: RemovalPolicy.SNAPSHOT`, refused at synth: CloudFormation
 * takes a snapshot on delete of only a few resource types, and
 * AWS::DynamoDB::Table is not one of them ("DeletionPolicy attribute",
 * CloudFormation user guide; cfn-lint E3035 and E3036: DeletionPolicy and
 * UpdateReplacePolicy of a table are Delete, Retain or
 * RetainExceptOnCreate). The template would fail at deploy, not at synth.
 */
class UnsupportedRemovalPolicyError extends A2Error<'UNSUPPORTED_REMOVAL_POLICY'> {
  constructor() {
    super(
      'UNSUPPORTED_REMOVAL_POLICY',
      'a2: removalPolicy SNAPSHOT cannot apply to the event log table: CloudFormation has no Snapshot DeletionPolicy for AWS::DynamoDB::Table, so the deploy would fail. Use RemovalPolicy.RETAIN (the default: the table, with its point-in-time recovery, outlives the stack; back it up with AWS Backup or an on-demand backup before you delete it), or RemovalPolicy.DESTROY for a throwaway stack.',
    )
    this.name = 'UnsupportedRemovalPolicyError'
  }
}

/**
 * The event log: one on-demand table, its stream (new images, for the
 * router) and its TTL attribute. Created in the agent's own scope with the
 * ID it always had, so its logical ID (and the table) survives upgrades.
 */
export function eventLogTable(
  scope: Construct,
  props: Pick<A2AgentProps, 'removalPolicy' | 'deletionProtection'>,
): dynamodb.Table {
  return new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: PK, type: dynamodb.AttributeType.STRING },
    sortKey: { name: SK, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    stream: dynamodb.StreamViewType.NEW_IMAGE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // Claim items expire through it; apps may set it to expire sessions.
    timeToLiveAttribute: TTL_ATTRIBUTE,
    ...tableDeletion(props),
  })
}

/**
 * The table's removal policy and deletion protection, which must agree.
 * DynamoDB refuses to delete a table while deletion protection is on,
 * whatever asks ("Using deletion protection",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithTables.Basics.html#WorkingWithTables.Basics.DeletionProtection),
 * so a stack whose removal policy deletes the table (DESTROY) would end
 * `cdk destroy` in DELETE_FAILED with it on. moto does not enforce it; a
 * template test pins the pairing. SNAPSHOT is refused outright: a table has
 * no snapshot on delete.
 */
function tableDeletion(props: Pick<A2AgentProps, 'removalPolicy' | 'deletionProtection'>): {
  removalPolicy: RemovalPolicy
  deletionProtection: boolean
} {
  const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN
  if (removalPolicy === RemovalPolicy.SNAPSHOT) throw new UnsupportedRemovalPolicyError()
  const deletes = removalPolicy === RemovalPolicy.DESTROY
  if (deletes && props.deletionProtection === true) {
    throw new Error(
      `a2: removalPolicy ${removalPolicy.toUpperCase()} deletes the event log table when the stack goes, but deletionProtection: true makes DynamoDB refuse that delete, so cdk destroy would end in DELETE_FAILED. Leave deletionProtection out (it is off by default with ${removalPolicy.toUpperCase()}), or keep the table with RemovalPolicy.RETAIN.`,
    )
  }
  return { removalPolicy, deletionProtection: props.deletionProtection ?? !deletes }
}
