import { Stack, Validations } from 'aws-cdk-lib'
import type * as lambda from 'aws-cdk-lib/aws-lambda'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import type { Construct, IConstruct } from 'constructs'

/**
 * What the findings are about, of an `A2Agent` (which calls this from its
 * constructor; a structural type, so this file need not import it back).
 */
interface NaggedAgent extends Construct {
  readonly api: IConstruct
  readonly functions: { readonly router: lambda.IFunction }
}

const PINNED_RUNTIME = {
  id: 'AwsSolutions-L1',
  reason:
    'nodejs22.x is the pinned Lambda runtime of a2 (docs/architecture.md): nodejs24.x is newer but not yet the tested target.',
}

/** Every acknowledged cdk-nag AwsSolutions finding of an A2Agent, with why. */
export function acknowledgeFindings(
  agent: NaggedAgent,
  parts: {
    /** Whether the functions send X-Ray traces (the `tracing` prop). */
    tracing: boolean
    /** Whether the lanes may erase sessions (the `erase` prop). */
    erase: boolean
    /** Every function bundled from functions/lambda.ts. */
    bundledFunctions: lambda.IFunction[]
    /** The lane functions, which alone set timers. */
    laneFunctions: lambda.IFunction[]
    deadLetterQueues: sqs.Queue[]
    scheduleArn: string
    /** The API's `auth`: what stands in for an authorizer, or nothing for `none`. */
    authType: 'capability' | 'cognito' | 'iam' | 'none'
  },
): void {
  const xray = parts.tracing
    ? ' xray:PutTraceSegments and xray:PutTelemetryRecords (active tracing) have no resource either.'
    : ''
  const erase = parts.erase
    ? " scheduler:ListSchedules (erase: true) has no resource type either; the schedules it lists are deleted only in the agent's group."
    : ''
  for (const bundled of parts.bundledFunctions) {
    Validations.of(bundled).acknowledge(PINNED_RUNTIME)
    const lane = parts.laneFunctions.includes(bundled)
    const reason = `${parts.tracing ? xray : ''}${lane ? erase : ''}`.trim()
    if (reason && bundled !== agent.functions.router) {
      Validations.of(roleOf(bundled)).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason })
    }
  }
  Validations.of(roleOf(agent.functions.router)).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: `dynamodb:ListStreams, which the DynamoDB event source grants, cannot be scoped to a resource.${xray}`,
  })
  for (const lane of parts.laneFunctions) {
    Validations.of(roleOf(lane)).acknowledge({
      id: `AwsSolutions-IAM5[Resource::${nagNotation(agent, parts.scheduleArn)}]`,
      reason:
        "Timers create one-time schedules whose names are derived at runtime; the grant is scoped to this agent's schedule group.",
    })
  }
  for (const queueWithoutDlq of parts.deadLetterQueues) {
    Validations.of(queueWithoutDlq).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself a dead-letter destination (Scheduler DLQ or the stream's on-failure destination).",
    })
  }
  const streamConcurrency = agent.node.tryFindChild('StreamConcurrency')
  if (streamConcurrency) {
    Validations.of(streamConcurrency).acknowledge(PINNED_RUNTIME, {
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        "lambda:GetAccountSettings reads the account's concurrency quota and has no resource to scope it to.",
    })
  }
  // `none` acknowledges nothing: its findings stay, next to the synth warning.
  if (parts.authType === 'capability') {
    Validations.of(agent.api).acknowledge(
      {
        id: 'AwsSolutions-APIG4',
        reason:
          "Every GET and POST must carry its session's capability token (HMAC-SHA256, key in Secrets Manager), checked by the function before the agent module's authorize; for signed-in users, set auth to Cognito or IAM.",
      },
      {
        id: 'AwsSolutions-COG4',
        reason:
          'Anonymous sessions: the capability token the server minted for a session, not a user pool, opens it (see APIG4).',
      },
    )
  }
  if (parts.authType === 'iam') {
    Validations.of(agent.api).acknowledge({
      id: 'AwsSolutions-COG4',
      reason:
        "Callers are IAM principals (SigV4, execute-api:Invoke); the agent module's authorize decides per session.",
    })
  }
  Validations.of(agent.api).acknowledge(
    {
      id: 'AwsSolutions-APIG2',
      reason:
        "The agent's fetch validates every push against its contract and answers typed 400 errors.",
    },
    {
      id: 'AwsSolutions-APIG3',
      reason:
        "A WAF web ACL is the deploying account's choice (cost, rules); associate one with the stage as needed.",
    },
    {
      id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
      reason:
        "API Gateway's account-level CloudWatch role uses the AWS managed policy made for it, which only writes API Gateway's log groups.",
    },
  )
}

/**
 * Where a function's IAM findings are: its role, which the construct makes
 * beside the function (infra/function-role.ts), not inside it.
 */
function roleOf(fn: lambda.IFunction): IConstruct {
  return fn.role ?? fn
}

/**
 * A resource as cdk-nag names it in a finding ID: the resolved value with
 * `{ Ref: X }` as `<X>` and `{ 'Fn::GetAtt': [X, A] }` as `<X.A>`.
 */
function nagNotation(scope: Construct, value: string): string {
  const render = (part: unknown): string => {
    if (typeof part === 'string') return part
    const token = part as {
      Ref?: string
      'Fn::GetAtt'?: [string, string]
      'Fn::Join'?: [string, unknown[]]
    }
    if (token.Ref) return `<${token.Ref}>`
    if (token['Fn::GetAtt']) return `<${token['Fn::GetAtt'].join('.')}>`
    if (token['Fn::Join']) return token['Fn::Join'][1].map(render).join(token['Fn::Join'][0])
    return JSON.stringify(part)
  }
  return render(Stack.of(scope).resolve(value))
}
