import { CustomResource, Duration, RemovalPolicy } from 'aws-cdk-lib'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import * as logs from 'aws-cdk-lib/aws-logs'
import { Construct } from 'constructs'

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
 * roll the first deploy back.
 */
export const RESERVED_CONCURRENCY_HANDLER = `
const sdk = require('@aws-sdk/client-lambda');
const UNRESERVED_MINIMUM = ${UNRESERVED_MINIMUM};

async function reserve(client, functionName, requested) {
  const { AccountLimit } = await client.send(new sdk.GetAccountSettingsCommand({}));
  const { ReservedConcurrentExecutions: current = 0 } = await client.send(
    new sdk.GetFunctionConcurrencyCommand({ FunctionName: functionName }));
  // The function's own reservation is not unreserved now, but is ours to move.
  const spare = AccountLimit.UnreservedConcurrentExecutions + current - UNRESERVED_MINIMUM;
  const reserved = Math.min(requested, spare);
  if (reserved >= 1) {
    await client.send(new sdk.PutFunctionConcurrencyCommand({
      FunctionName: functionName, ReservedConcurrentExecutions: reserved }));
    return { reserved, reason: 'reserved' };
  }
  if (current > 0) await client.send(new sdk.DeleteFunctionConcurrencyCommand({ FunctionName: functionName }));
  return {
    reserved: 0,
    reason: 'the account has ' + AccountLimit.ConcurrentExecutions + ' concurrent executions in all; ' +
      'raise the Lambda concurrency quota to reserve ' + requested,
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
      const { reserved, reason } = await reserve(client, props.FunctionName, Number(props.Requested));
      answer.Data = { Reserved: reserved };
      answer.Reason = reason;
      console.log(JSON.stringify({ functionName: props.FunctionName, requested: props.Requested, reserved, reason }));
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
}

/**
 * Reserved concurrency for a function, applied at deploy time only when the
 * account's quota allows it (see `RESERVED_CONCURRENCY_HANDLER`), so a stack
 * deploys the same in a new account and in an established one.
 */
export class ReservedConcurrency extends Construct {
  /** The concurrency reserved at deploy time: 0 when the account could not spare it. */
  readonly reserved: string

  constructor(scope: Construct, id: string, props: ReservedConcurrencyProps) {
    super(scope, id)
    if (!Number.isInteger(props.requested) || props.requested < 1) {
      throw new Error(
        `a2: reserved concurrency must be a whole number of at least 1 (or false); got ${props.requested}`,
      )
    }
    const handler = new lambda.Function(this, 'Function', {
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      handler: 'index.handler',
      code: lambda.Code.fromInline(RESERVED_CONCURRENCY_HANDLER),
      timeout: Duration.minutes(1),
      description: 'a2: reserves concurrency for the stream function when the account can spare it',
      logGroup: new logs.LogGroup(this, 'Logs', {
        retention: logs.RetentionDays.ONE_MONTH,
        removalPolicy: RemovalPolicy.DESTROY,
      }),
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
      properties: { FunctionName: props.fn.functionName, Requested: props.requested },
    })
    this.reserved = resource.getAttString('Reserved')
  }
}
