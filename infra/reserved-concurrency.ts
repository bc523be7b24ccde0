import { Annotations, CustomResource, Duration, RemovalPolicy } from 'aws-cdk-lib'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import * as logs from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'
import { functionRole } from './function-role.ts'

/**
 * Lambda keeps this much of an account's concurrency unreserved: a function
 * may reserve up to the unreserved concurrency minus 100 (Lambda developer
 * guide, "Configuring reserved concurrency").
 */
const UNRESERVED_MINIMUM = 100

/**
 * The custom resource's handler, as the inline code of its function (the
 * Node.js runtime's own AWS SDK; `fetch` answers CloudFormation). It
 * reserves `Requested` concurrency for `FunctionName` when the account can
 * spare it, and otherwise leaves the function unreserved and says so in
 * `Reserved: 0`: new accounts often have a concurrency quota of 10, where
 * any reservation fails ("decreases account's UnreservedConcurrentExecution
 * below its minimum value") and a plain `ReservedConcurrentExecutions` would
 * roll the first deploy back. It answers the account's quota too
 * (`AccountLimit`) and a `Note` for people, which the stack outputs: with a
 * quota of 10 the GET streams share those 10 with the lanes, whose event
 * source mappings may run `Lanes` (`140 invocations in all`).
 * @internal Exported for its test (knip --production).
 */
export const RESERVED_CONCURRENCY_HANDLER = `
const sdk = require('@aws-sdk/client-lambda');
const UNRESERVED_MINIMUM = ${UNRESERVED_MINIMUM};

async function reserve(client, functionName, requested, lanes) {
  const { AccountLimit } = await client.send(new sdk.GetAccountSettingsCommand({}));
  const { ReservedConcurrentExecutions: current = 0 } = await client.send(
    new sdk.GetFunctionConcurrencyCommand({ FunctionName: functionName }));
  const limit = AccountLimit.ConcurrentExecutions;
  // The function's own reservation is not unreserved now, but is ours to move.
  const spare = AccountLimit.UnreservedConcurrentExecutions + current - UNRESERVED_MINIMUM;
  const reserved = Math.min(requested, spare);
  if (reserved >= 1) {
    await client.send(new sdk.PutFunctionConcurrencyCommand({
      FunctionName: functionName, ReservedConcurrentExecutions: reserved }));
    return {
      reserved, limit, reason: 'reserved',
      note: reserved + " of the account's " + limit + ' concurrent executions reserved for GET streams' +
        (reserved < requested ? ' (' + requested + ' asked; raise the quota and redeploy for more)' : ''),
    };
  }
  if (current > 0) await client.send(new sdk.DeleteFunctionConcurrencyCommand({ FunctionName: functionName }));
  return {
    reserved: 0, limit,
    reason: 'the account has ' + limit + ' concurrent executions in all; ' +
      'raise the Lambda concurrency quota to reserve ' + requested,
    note: "none reserved: the account's Lambda concurrency quota is " + limit + ', and GET streams share it ' +
      'with the lanes, whose event sources may run ' + lanes + '; a few open tabs throttle ' +
      'the lanes. Raise the quota (Service Quotas, AWS Lambda, Concurrent executions) and redeploy.',
  };
}

async function release(client, functionName) {
  try {
    await client.send(new sdk.DeleteFunctionConcurrencyCommand({ FunctionName: functionName }));
  } catch (error) {
    if (error.name !== 'ResourceNotFoundException') throw error;
  }
}

exports.handler = async (event, context) => {
  const props = event.ResourceProperties;
  const answer = {
    Status: 'SUCCESS', Reason: '', PhysicalResourceId: props.FunctionName,
    StackId: event.StackId, RequestId: event.RequestId, LogicalResourceId: event.LogicalResourceId,
    Data: {},
  };
  try {
    const client = new sdk.LambdaClient({});
    if (event.RequestType === 'Delete') {
      answer.PhysicalResourceId = event.PhysicalResourceId;
      await release(client, event.PhysicalResourceId);
    } else {
      if (event.RequestType === 'Update' && event.PhysicalResourceId !== props.FunctionName)
        await release(client, event.PhysicalResourceId);
      const { reserved, limit, reason, note } = await reserve(
        client, props.FunctionName, Number(props.Requested), props.Lanes);
      answer.Data = { Reserved: reserved, AccountLimit: limit, Note: note };
      answer.Reason = reason;
      console.log(JSON.stringify({ functionName: props.FunctionName, requested: props.Requested, reserved, limit, reason }));
    }
  } catch (error) {
    answer.Status = 'FAILED';
    answer.Reason = String(error && error.message || error) + ' (log stream ' + context.logStreamName + ')';
  }
  await fetch(event.ResponseURL, {
    method: 'PUT', headers: { 'content-type': '' }, body: JSON.stringify(answer),
  });
};
`

export interface ReservedConcurrencyProps {
  /** The function to reserve concurrency for. */
  fn: lambda.IFunction
  /** What to reserve when the account can spare it. */
  requested: number
  /** How many invocations the queues' event sources may run at once, for the note (`140 invocations in all`). */
  lanes: string
  /**
   * Changes on every synth (default: the synth's time), so CloudFormation
   * updates the resource, and the handler recomputes, on every deploy.
   */
  nonce?: string
}

/**
 * Reserved concurrency for a function, applied at deploy time only when the
 * account's quota allows it (see `RESERVED_CONCURRENCY_HANDLER`), so a stack
 * deploys the same in a new account and in an established one.
 *
 * Recomputed on every deploy: CloudFormation runs a custom resource only
 * when its properties change, so a reservation computed once would stay 0
 * after the account's quota is raised, however often the stack is
 * redeployed. Its `Nonce` property changes with every synth, so every
 * deploy updates it and the handler reads the quota again. The cost: the
 * resource shows in every `cdk diff`, and a deploy with nothing else to
 * change still runs one stack update (a few seconds, one invocation).
 */
export class ReservedConcurrency extends Construct {
  /** The concurrency reserved at deploy time: 0 when the account could not spare it. */
  readonly reserved: string
  /** The account's Lambda concurrency quota at deploy time. */
  readonly accountLimit: string
  /** What was reserved and, when nothing was, why and what to do: for people (a stack output). */
  readonly note: string
  /** What was asked for. */
  readonly requested: number

  constructor(scope: Construct, id: string, props: ReservedConcurrencyProps) {
    super(scope, id)
    if (!Number.isInteger(props.requested) || props.requested < 1) {
      throw new Error(
        `a2: reserved concurrency must be a whole number of at least 1 (or false); got ${props.requested}`,
      )
    }
    const logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    })
    const handler = new lambda.Function(this, 'Function', {
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromInline(RESERVED_CONCURRENCY_HANDLER),
      timeout: Duration.minutes(1),
      description: 'a2: reserves concurrency for the stream function when the account can spare it',
      logGroup,
      role: functionRole(this, 'Role', logGroup),
    })
    // GetAccountSettings has no resource to scope it to.
    handler.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['lambda:GetAccountSettings'], resources: ['*'] }),
    )
    handler.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [
          'lambda:GetFunctionConcurrency',
          'lambda:PutFunctionConcurrency',
          'lambda:DeleteFunctionConcurrency',
        ],
        resources: [props.fn.functionArn],
      }),
    )
    const resource = new CustomResource(this, 'Resource', {
      serviceToken: handler.functionArn,
      resourceType: 'Custom::A2ReservedConcurrency',
      properties: {
        FunctionName: props.fn.functionName,
        Requested: props.requested,
        Lanes: props.lanes,
        Nonce: props.nonce ?? new Date().toISOString(),
      },
    })
    this.requested = props.requested
    this.reserved = resource.getAttString('Reserved')
    this.accountLimit = resource.getAttString('AccountLimit')
    this.note = resource.getAttString('Note')
  }
}

/**
 * Warns at synth when the account's quota (as the props state it: synth is
 * offline) leaves nothing to reserve: at 100 or less every GET stream holds
 * one of the account's few units for up to 30 s, units the lanes' event
 * sources (`lanes`) need too.
 */
export function smallQuotaWarning(
  scope: Construct,
  quota: number | undefined,
  lanes: string,
): void {
  if (quota === undefined || quota > UNRESERVED_MINIMUM) return
  Annotations.of(scope).addWarningV2(
    'a2-aws:small-concurrency-quota',
    `The account's Lambda concurrency quota is ${quota} (lambdaConcurrencyQuota): Lambda keeps ${UNRESERVED_MINIMUM} unreserved, so nothing can be reserved for GET streams, and each open stream holds one of the ${quota} units for up to 30 s while the lanes' event sources may run ${lanes}: a few open tabs throttle every lane. Ask for 1,000 (Service Quotas, AWS Lambda, "Concurrent executions") and redeploy: the reservation is recomputed on every deploy.`,
  )
}
