import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib'
import * as apigateway from 'aws-cdk-lib/aws-apigateway'
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources'
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs'
import * as logs from 'aws-cdk-lib/aws-logs'
import * as scheduler from 'aws-cdk-lib/aws-scheduler'
import * as sqs from 'aws-cdk-lib/aws-sqs'
import { Construct } from 'constructs'
import { DEFAULT_MAX_RECEIVE_COUNT } from '../shared/aws/agent-environment.ts'
import { environmentVariables } from '../shared/aws/environment-variables.ts'
import { PK, SK, TTL_ATTRIBUTE } from '../shared/stores/dynamodb/table-keys.ts'

export const LANES = ['admission', 'generation', 'tools', 'handlers'] as const
export type LaneName = (typeof LANES)[number]

/** SQS asks for a visibility timeout of at least 6x the consuming function's timeout. */
const VISIBILITY_PER_TIMEOUT = 6
/** SQS caps the visibility timeout at 12 hours. */
const MAX_VISIBILITY = Duration.hours(12)

const DEFAULT_TIMEOUTS: Record<LaneName | 'ingress' | 'timers' | 'router', Duration> = {
  admission: Duration.minutes(1),
  // One model step, streamed: long outputs take minutes.
  generation: Duration.minutes(10),
  tools: Duration.minutes(5),
  handlers: Duration.minutes(5),
  ingress: Duration.minutes(1),
  timers: Duration.minutes(1),
  router: Duration.minutes(1),
}

export interface A2AgentProps {
  /** The agent module: a file exporting the value `agent()` returns. */
  entry: string
  /** The agent's export in `entry` (default `default`). */
  exportName?: string
  /** What happens to the event log table when the stack goes (default RETAIN). */
  removalPolicy?: RemovalPolicy
  /** More environment for every function (model keys, `A2_MODEL`, ...). */
  environment?: Record<string, string>
  /** Memory of every function in MB (default 1024). */
  memorySize?: number
  /** Function timeouts; queue visibility timeouts follow at 6x. */
  timeouts?: Partial<Record<LaneName | 'ingress' | 'timers' | 'router', Duration>>
  /** Deliveries of a queue message before it goes to its dead-letter queue (default 5). */
  maxReceiveCount?: number
  /** Where esbuild runs and finds `node_modules` (default: the current directory). */
  projectRoot?: string
  /** The API stage (default `prod`). */
  stageName?: string
}

/**
 * An A2 agent on AWS: the event log table and its stream, the router, one
 * SQS FIFO queue and function per lane, timers (EventBridge Scheduler and
 * SQS delays), an ingress queue for internal services, and a REST API whose
 * GET streams a session as SSE and whose POST takes pushes.
 *
 * @example
 * const support = new A2Agent(stack, 'Support', { entry: 'src/agent.ts' })
 * support.ingressQueue.grantSendMessages(ordersService)
 */
export class A2Agent extends Construct {
  readonly table: dynamodb.Table
  readonly api: apigateway.RestApi
  /** The agent's endpoint: `GET ?sessionId=` streams, `POST ?sessionId=` pushes. */
  readonly url: string
  readonly laneQueues: Record<LaneName, sqs.Queue>
  readonly laneDeadLetterQueues: Record<LaneName, sqs.Queue>
  /** Internal services send `{ sessionId, events }` here (see `sendInputs`). */
  readonly ingressQueue: sqs.Queue
  readonly ingressDeadLetterQueue: sqs.Queue
  /** Due timers arrive here, from Scheduler or an SQS delay. */
  readonly timerQueue: sqs.Queue
  readonly timerDeadLetterQueue: sqs.Queue
  readonly scheduleGroup: scheduler.ScheduleGroup
  /** The role EventBridge Scheduler assumes to deliver timers. */
  readonly schedulerRole: iam.Role
  /** Stream batches the router gave up on. */
  readonly routerFailureQueue: sqs.Queue
  readonly functions: Record<
    'http' | 'router' | LaneName | 'ingress' | 'timers',
    nodejs.NodejsFunction
  >

  constructor(scope: Construct, id: string, props: A2AgentProps) {
    super(scope, id)
    const timeouts = { ...DEFAULT_TIMEOUTS, ...props.timeouts }
    const maxReceiveCount = props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: PK, type: dynamodb.AttributeType.STRING },
      sortKey: { name: SK, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType.NEW_IMAGE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      timeToLiveAttribute: TTL_ATTRIBUTE,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    })

    const queue = (name: string, options: sqs.QueueProps): sqs.Queue =>
      new sqs.Queue(this, name, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        ...options,
      })
    const deadLetterQueue = (name: string, fifo: boolean): sqs.Queue =>
      queue(name, { ...(fifo ? { fifo: true } : {}), retentionPeriod: Duration.days(14) })
    const visibility = (timeout: Duration): Duration =>
      Duration.seconds(
        Math.min(MAX_VISIBILITY.toSeconds(), timeout.toSeconds() * VISIBILITY_PER_TIMEOUT),
      )

    const laneQueues = {} as Record<LaneName, sqs.Queue>
    const laneDeadLetterQueues = {} as Record<LaneName, sqs.Queue>
    for (const lane of LANES) {
      const dlq = deadLetterQueue(`${pascal(lane)}DeadLetterQueue`, true)
      laneDeadLetterQueues[lane] = dlq
      laneQueues[lane] = queue(`${pascal(lane)}Queue`, {
        fifo: true,
        visibilityTimeout: visibility(timeouts[lane]),
        deadLetterQueue: { queue: dlq, maxReceiveCount },
      })
    }
    this.laneQueues = laneQueues
    this.laneDeadLetterQueues = laneDeadLetterQueues

    this.ingressDeadLetterQueue = deadLetterQueue('IngressDeadLetterQueue', true)
    this.ingressQueue = queue('IngressQueue', {
      fifo: true,
      contentBasedDeduplication: true,
      visibilityTimeout: visibility(timeouts.ingress),
      deadLetterQueue: { queue: this.ingressDeadLetterQueue, maxReceiveCount },
    })
    this.timerDeadLetterQueue = deadLetterQueue('TimerDeadLetterQueue', false)
    this.timerQueue = queue('TimerQueue', {
      visibilityTimeout: visibility(timeouts.timers),
      deadLetterQueue: { queue: this.timerDeadLetterQueue, maxReceiveCount },
    })
    const schedulerDeadLetterQueue = deadLetterQueue('SchedulerDeadLetterQueue', false)
    this.routerFailureQueue = deadLetterQueue('RouterFailureQueue', false)

    this.scheduleGroup = new scheduler.ScheduleGroup(this, 'ScheduleGroup', {
      removalPolicy: RemovalPolicy.DESTROY,
    })
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: { 'aws:SourceAccount': Stack.of(this).account },
          ArnLike: {
            'aws:SourceArn': Stack.of(this).formatArn({
              service: 'scheduler',
              resource: 'schedule',
              resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
            }),
          },
        },
      }),
      description: 'EventBridge Scheduler delivers due a2 timers to the timer queue',
    })
    this.timerQueue.grantSendMessages(this.schedulerRole)
    schedulerDeadLetterQueue.grantSendMessages(this.schedulerRole)

    const environment: Record<string, string> = {
      ...props.environment,
      // The same map the functions read back with readAwsEnvironment().
      ...environmentVariables({
        tableName: this.table.tableName,
        queueUrls: {
          admission: laneQueues.admission.queueUrl,
          generation: laneQueues.generation.queueUrl,
          tools: laneQueues.tools.queueUrl,
          handlers: laneQueues.handlers.queueUrl,
        },
        timers: {
          queueUrl: this.timerQueue.queueUrl,
          queueArn: this.timerQueue.queueArn,
          scheduleGroup: this.scheduleGroup.scheduleGroupName as string,
          schedulerRoleArn: this.schedulerRole.roleArn,
          deadLetterQueueArn: schedulerDeadLetterQueue.queueArn,
        },
        agentExport: props.exportName ?? 'default',
        maxReceiveCount,
      }),
      NODE_OPTIONS: '--enable-source-maps',
    }

    const projectRoot = resolve(props.projectRoot ?? process.cwd())
    const agentEntry = resolve(projectRoot, props.entry)
    const aliasTarget = `./${relative(projectRoot, agentEntry).split('\\').join('/')}`
    const fn = (name: string, handler: string, timeout: Duration): nodejs.NodejsFunction =>
      new nodejs.NodejsFunction(this, name, {
        entry: lambdaEntry(),
        handler,
        projectRoot,
        depsLockFilePath: lockFile(projectRoot),
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: props.memorySize ?? 1024,
        timeout,
        environment,
        loggingFormat: lambda.LoggingFormat.JSON,
        logGroup: new logs.LogGroup(this, `${name}Logs`, {
          retention: logs.RetentionDays.ONE_MONTH,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
        bundling: {
          format: nodejs.OutputFormat.ESM,
          target: 'node22',
          minify: true,
          sourceMap: true,
          bundleAwsSDK: true,
          mainFields: ['module', 'main'],
          // Some bundled dependencies still `require()` Node built-ins.
          banner:
            "import { createRequire as __a2CreateRequire } from 'node:module'; const require = __a2CreateRequire(import.meta.url);",
          esbuildArgs: { '--alias:a2-aws-agent-module': aliasTarget },
        },
      })

    const functions = {
      http: fn('HttpFunction', 'http', Duration.minutes(15)),
      router: fn('RouterFunction', 'router', timeouts.router),
      admission: fn('AdmissionFunction', 'admissionLane', timeouts.admission),
      generation: fn('GenerationFunction', 'generationLane', timeouts.generation),
      tools: fn('ToolsFunction', 'toolsLane', timeouts.tools),
      handlers: fn('HandlersFunction', 'handlersLane', timeouts.handlers),
      ingress: fn('IngressFunction', 'ingress', timeouts.ingress),
      timers: fn('TimersFunction', 'timers', timeouts.timers),
    }
    this.functions = functions

    // The router reads the stream (granted by the event source) and sends
    // wake-ups; it never touches the table's items.
    functions.router.addEventSource(
      new DynamoEventSource(this.table, {
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: 100,
        parallelizationFactor: 1,
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: 10,
        maxRecordAge: Duration.hours(24),
        onFailure: new SqsDlq(this.routerFailureQueue),
      }),
    )
    for (const lane of LANES) laneQueues[lane].grantSendMessages(functions.router)

    // Everything that runs the agent reads and writes the log, wakes lanes
    // (the fast path) and sets timers.
    const agentFunctions = [
      functions.http,
      functions.admission,
      functions.generation,
      functions.tools,
      functions.handlers,
      functions.ingress,
      functions.timers,
    ]
    const scheduleArn = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
    })
    for (const agentFunction of agentFunctions) {
      agentFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [
            'dynamodb:GetItem',
            'dynamodb:BatchGetItem',
            'dynamodb:Query',
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:ConditionCheckItem',
          ],
          resources: [this.table.tableArn],
        }),
      )
      for (const lane of LANES) laneQueues[lane].grantSendMessages(agentFunction)
      this.timerQueue.grantSendMessages(agentFunction)
      agentFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['scheduler:CreateSchedule', 'scheduler:GetSchedule'],
          resources: [scheduleArn],
        }),
      )
      agentFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [this.schedulerRole.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      )
    }

    const sqsSource = (queueToRead: sqs.Queue, batchSize: number): SqsEventSource =>
      new SqsEventSource(queueToRead, { batchSize, reportBatchItemFailures: true })
    functions.admission.addEventSource(sqsSource(laneQueues.admission, 10))
    // A model step or a tool takes long: one per invocation, so a batch does
    // not hold other sessions' work behind it.
    functions.generation.addEventSource(sqsSource(laneQueues.generation, 1))
    functions.tools.addEventSource(sqsSource(laneQueues.tools, 1))
    functions.handlers.addEventSource(sqsSource(laneQueues.handlers, 1))
    functions.ingress.addEventSource(sqsSource(this.ingressQueue, 10))
    functions.timers.addEventSource(sqsSource(this.timerQueue, 10))

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    })
    this.api = new apigateway.RestApi(this, 'Api', {
      description: 'a2 agent: GET streams a session as SSE, POST pushes events',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stageName ?? 'prod',
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
      },
    })
    const resource = this.api.root.addResource('agent')
    resource.addMethod(
      'GET',
      new apigateway.LambdaIntegration(functions.http, {
        responseTransferMode: apigateway.ResponseTransferMode.STREAM,
        timeout: Duration.minutes(15),
      }),
    )
    resource.addMethod(
      'POST',
      new apigateway.LambdaIntegration(functions.http, {
        responseTransferMode: apigateway.ResponseTransferMode.STREAM,
        timeout: Duration.seconds(29),
      }),
    )
    this.url = this.api.urlForPath(resource.path)

    acknowledgeFindings(this, {
      agentFunctions: [...agentFunctions, functions.router],
      deadLetterQueues: [schedulerDeadLetterQueue, this.routerFailureQueue],
      scheduleArn,
    })
  }
}

/** Every acknowledged cdk-nag AwsSolutions finding, with why. */
function acknowledgeFindings(
  agent: A2Agent,
  parts: {
    agentFunctions: nodejs.NodejsFunction[]
    deadLetterQueues: sqs.Queue[]
    scheduleArn: string
  },
): void {
  for (const agentFunction of parts.agentFunctions) {
    Validations.of(agentFunction).acknowledge(
      {
        id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
        reason:
          "The AWS managed basic execution role only allows writing the function's own CloudWatch logs.",
      },
      {
        id: 'AwsSolutions-L1',
        reason:
          'nodejs22.x is the pinned Lambda runtime of a2 (ARCHITECTURE.md): nodejs24.x is newer but not yet the tested target.',
      },
    )
  }
  Validations.of(agent.functions.router).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason:
      'dynamodb:ListStreams, which the DynamoDB event source grants, cannot be scoped to a resource.',
  })
  for (const agentFunction of parts.agentFunctions.filter((f) => f !== agent.functions.router)) {
    Validations.of(agentFunction).acknowledge({
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
      id: 'AwsSolutions-APIG4',
      reason:
        "Authorization is the agent module's `authorize` export, checked per session on every read and push; add an API Gateway authorizer on top when the caller identity comes from IAM or Cognito.",
    },
    {
      id: 'AwsSolutions-COG4',
      reason: 'See APIG4: sessions are authorized by the agent module, not by a Cognito user pool.',
    },
    {
      id: 'AwsSolutions-APIG6',
      reason:
        'Execution logging needs the account-wide API Gateway CloudWatch role, which one stack should not set for a whole account; access logs are on.',
    },
  )
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

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1)
}

/** The functions' entry point, as source in the repo or compiled in the package. */
function lambdaEntry(): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const candidates = ['lambda.ts', 'lambda.js'].map((file) => join(here, '..', 'functions', file))
  const found = candidates.find((candidate) => existsSync(candidate))
  if (!found)
    throw new Error(`a2: the Lambda entry point is missing (looked for ${candidates.join(', ')})`)
  return found
}

function lockFile(projectRoot: string): string {
  for (const name of ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb']) {
    const candidate = join(projectRoot, name)
    if (existsSync(candidate)) return candidate
  }
  throw new Error(`a2: no lock file in ${projectRoot}; set projectRoot to your package's directory`)
}
