import { existsSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CfnOutput, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib'
import * as apigateway from 'aws-cdk-lib/aws-apigateway'
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch'
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import * as iam from 'aws-cdk-lib/aws-iam'
import * as lambda from 'aws-cdk-lib/aws-lambda'
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources'
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs'
import * as logs from 'aws-cdk-lib/aws-logs'
import * as scheduler from 'aws-cdk-lib/aws-scheduler'
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import * as sqs from 'aws-cdk-lib/aws-sqs'
import { Construct } from 'constructs'
import {
  DEFAULT_METRICS_TARGET,
  ENVIRONMENT_VARIABLES,
  environmentVariables,
} from '../shared/aws/environment-variables.ts'
import {
  DEAD_LETTER_RETENTION_SECONDS,
  DEFAULT_MAX_RECEIVE_COUNT,
  MESSAGE_RETENTION_SECONDS,
  QUEUE_FUNCTION_NAMES,
  QUEUE_FUNCTIONS,
  QUEUE_LANES,
  type QueueFunction,
  type QueueFunctionSpec,
  type QueueLane,
  visibilityTimeoutSeconds,
} from '../shared/aws/pipeline-functions.ts'
import { ROUTER_FILTER_PATTERNS } from '../shared/aws/stream-filter.ts'
import { VERIFY_OUTPUT_DESCRIPTION, type VerifyConfigInput } from '../shared/aws/verify-output.ts'
import { PK, SK, TTL_ATTRIBUTE } from '../shared/stores/dynamodb/table-keys.ts'
import {
  A2AgentAlarms,
  type A2AgentAlarmsProps,
  A2AgentDashboard,
  type MonitoredParts,
} from './a2-agent-monitoring.ts'
import { acknowledgeFindings } from './a2-agent-nag.ts'
import { agentUrlOutput, constructOutput } from './agent-url-output.ts'
import { type A2AgentAuth, apiAuth } from './api-auth.ts'
import { type BedrockModel, bedrockInvokeStatements, bedrockModelIds } from './bedrock-grants.ts'
import { ReservedConcurrency, smallQuotaWarning } from './reserved-concurrency.ts'
import { type AgentSecret, grantSecrets } from './secrets.ts'

export type LaneName = QueueLane
/** The functions whose timeout a prop may set. */
export type TimedFunction = QueueFunction | 'router'

const ROUTER_TIMEOUT = Duration.minutes(1)
/** POST appends and wakes lanes; API Gateway gives it 29 s anyway. */
const HTTP_TIMEOUT = Duration.seconds(30)
/**
 * A GET stream ends when its session has been quiet for 10 s, and the HTTP
 * handler ends it 10 s before the deadline anyway (so at most 20 s, then the
 * client resumes): an invocation whose client left ends within 30 s even
 * when Lambda never signals the disconnect. The GET integration matches it.
 */
const STREAM_TIMEOUT = Duration.seconds(30)
/** What every function that reads the log may do on the table. */
const TABLE_READS = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query'] as const
/** The stream function waits on the log, it does not compute: 256 MB. */
const DEFAULT_STREAM_MEMORY_MB = 256

/** Open SSE streams reserved (and capped) by default, when the account can spare them. */
const DEFAULT_STREAM_CONCURRENCY = 100
/** The stage's default throttle: steady requests per second, and the burst above it. */
const DEFAULT_THROTTLE = { rateLimit: 100, burstLimit: 200 }

export interface A2AgentProps {
  /** The agent module: a file exporting the value `agent()` returns. */
  entry: string
  /** The agent's export in `entry` (default `default`). */
  exportName?: string
  /** What happens to the event log table when the stack goes (default RETAIN). */
  removalPolicy?: RemovalPolicy
  /**
   * DynamoDB deletion protection on the event log table: a `cdk destroy` or
   * a stray delete cannot drop every session's history. Default: on, unless
   * `removalPolicy` deletes the table (DESTROY, SNAPSHOT), which deletion
   * protection would refuse; asking for both is an error at synth.
   */
  deletionProtection?: boolean
  /** More environment for every function (`A2_MODEL`, ...; never a secret: see `secrets`). */
  environment?: Record<string, string>
  /**
   * Models the agent invokes on Amazon Bedrock, as its `model` names them
   * (`bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0`, the prefix
   * optional): the generation function, the one that calls models, may
   * invoke exactly these, with its role's credentials (no key). A
   * foundation model is granted in the stack's region; a cross-region
   * inference profile with its foundation model in every region it routes
   * to, only through the profile.
   */
  bedrockModels?: readonly BedrockModel[]
  /**
   * Keys as environment variables, never in the template: `{
   * AI_GATEWAY_API_KEY: secret }` with a Secrets Manager secret or an SSM
   * parameter. Each function named for a secret may read exactly it, gets
   * its ARN, and reads the value once at cold start into the variable. By
   * default the generation function reads it (a model key); `{ source,
   * functions: ['generation', 'tools'] }` names the functions.
   */
  secrets?: Record<string, AgentSecret>
  /** Memory of every function in MB but the stream function (default 1024). */
  memorySize?: number
  /**
   * Memory of the function that serves GET (streams and head checks) in MB
   * (default 256): it waits on the log and writes frames, and an open tab
   * pays for it by the second.
   */
  streamMemorySize?: number
  /** Function timeouts; queue visibility timeouts follow at 6x. */
  timeouts?: Partial<Record<TimedFunction, Duration>>
  /** Deliveries of a queue message before it goes to its dead-letter queue (default 5). */
  maxReceiveCount?: number
  /**
   * Expire idle sessions after this long (`'30 days'`): the agent's
   * `retention` (through `awsAgentParts()`), kept by the table's TTL on each
   * session's head. Default: sessions are kept forever.
   */
  retention?: string
  /**
   * Let the agent's tools and handlers erase sessions (`session.erase()`,
   * default false): the four lane functions, where they run, may list and
   * delete the agent's schedules (`scheduler:ListSchedules`, which takes no
   * resource, and `scheduler:DeleteSchedule` on the agent's group) and
   * delete items (`dynamodb:DeleteItem`, `dynamodb:BatchWriteItem` on the
   * table). Without it an erase in a deployed function fails at once with
   * `ERASE_NOT_GRANTED`, naming this prop; an operator erases with their own
   * credentials (`npx a2-aws erase`).
   */
  erase?: boolean
  /**
   * The most invocations each queue's event source mapping runs at once
   * (`MaximumConcurrency`, 2 to 1,000), so no queue can take the account's
   * whole Lambda concurrency; `false` sets none. By default generation (50),
   * tools (50) and timers (5) are capped, and admission, handlers and
   * ingress, FIFO queues of short invocations bounded by the sessions with
   * work, are not (`QUEUE_FUNCTIONS`). A cap has an idle cost: Lambda keeps
   * five pollers long-polling a capped queue, where an uncapped one scales
   * down to two, about $0.19 a month more per FIFO queue and $0.16 per
   * standard queue in empty receives (docs/deploy.md, "What an idle stack
   * costs"). Generation is better bounded by the model provider's rate limits.
   */
  maxConcurrency?: Partial<Record<QueueFunction, number | false>>
  /**
   * Concurrency reserved for the function that serves GET streams (default
   * 100), which also caps how many SSE streams are open at once: each holds
   * a Lambda invocation for up to 30 s (a client resumes it after that, or
   * checks the head while the session is quiet), and without a cap they
   * could take the concurrency the lanes need. Applied at deploy time only when
   * the account can spare it (a new account's quota is often 10); `false`
   * reserves nothing.
   */
  streamConcurrency?: number | false
  /**
   * The account's Lambda concurrency quota, if you know it (`aws lambda
   * get-account-settings --query AccountLimit.ConcurrentExecutions`):
   * synthesizing is offline and cannot ask. At 100 or less (a new account's
   * is often 10) nothing can be reserved for GET streams and they share the
   * quota with the lanes, so synth warns. Whatever it says, the reservation
   * is computed at deploy time from the real quota (the
   * `<construct>StreamConcurrency` output says what it found), and
   * `npm run verify` warns too.
   */
  lambdaConcurrencyQuota?: number
  /** The API stage's throttle (default 100 requests per second, bursts of 200). */
  throttle?: { rateLimit: number; burstLimit: number }
  /**
   * Create and own the account's API Gateway CloudWatch role (default true):
   * API Gateway refuses stage logging until the account has one, and a
   * fresh account has none. Set false where the account's role is managed
   * centrally (it must exist before the deploy).
   */
  apiGatewayCloudWatchRole?: boolean
  /** Where esbuild runs and finds `node_modules` (default: the current directory). */
  projectRoot?: string
  /** The API stage (default `prod`). */
  stageName?: string
  /**
   * Where the functions' metrics go (CloudWatch EMF): the namespace
   * (default `a2`) and the value of their `service` dimension (default this
   * construct's path, e.g. `MyStack/Support`), which tells agents apart.
   */
  metrics?: { namespace?: string; service?: string }
  /**
   * X-Ray active tracing on every function, each invocation a Powertools
   * Tracer subsegment with its AWS and model calls, sampled by X-Ray's
   * default rule (one request a second and 5% beyond). Default false:
   * traces cost per trace beyond X-Ray's free tier and need a wildcard
   * grant (X-Ray has no resources to scope it to); the metrics and alarms
   * are always on. Turn it on to find where a slow turn spends its time.
   */
  tracing?: boolean
  /**
   * The AI SDK's telemetry on every model call (default false): spans go
   * to the integration the agent module registers (`registerTelemetry`).
   */
  modelTelemetry?: boolean
  /**
   * The agent's alarms (default: created, without actions; 21 alarms on 22
   * metrics, $2.20 a month at $0.10 each): `{ topic }` notifies an SNS
   * topic, `{ throttles: 'all' }` alarms on every function's throttles
   * (+$0.70); `false` creates none.
   */
  alarms?: A2AgentAlarmsProps | false
  /**
   * A CloudWatch dashboard of the agent (default false): $3.00 a month at
   * list price (an account's first three dashboards of up to 50 metrics are
   * free), the largest part of an idle stack's fixed cost.
   */
  dashboard?: boolean
  /**
   * Who may open a session (default `'capability'`: the server opens
   * sessions and signs a token for each, with a key in Secrets Manager;
   * `{ type: 'cognito', userPools }`; `'iam'`; or `'none'`, which warns).
   */
  auth?: A2AgentAuth
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
  /** Timer firings Scheduler could not deliver. */
  readonly schedulerDeadLetterQueue: sqs.Queue
  readonly scheduleGroup: scheduler.ScheduleGroup
  /** The role EventBridge Scheduler assumes to deliver timers. */
  readonly schedulerRole: iam.Role
  /** Stream batches the router gave up on. */
  readonly routerFailureQueue: sqs.Queue
  /** `http` takes POSTs; `stream` serves GET streams; the rest read the stream or a queue. */
  readonly functions: Record<'http' | 'stream' | 'router' | QueueFunction, nodejs.NodejsFunction>
  /** The concurrency reserved for `functions.stream` at deploy time (a token; 0 if the account could not spare it). */
  readonly streamConcurrency?: string
  /** Where the functions write their metrics: the namespace and the `service` dimension. */
  readonly metricsTarget: { namespace: string; service: string }
  /** The alarms the construct created (none with `alarms: false`). */
  readonly alarms: cloudwatch.Alarm[]
  /** The agent's dashboard (absent with `dashboard: false`). */
  readonly dashboard?: cloudwatch.Dashboard
  /** The secret that signs session tokens (`auth: 'capability'`, the default). */
  readonly sessionKey?: secretsmanager.ISecret

  constructor(scope: Construct, id: string, props: A2AgentProps) {
    super(scope, id)
    const timeoutOf = (name: TimedFunction): Duration =>
      props.timeouts?.[name] ??
      (name === 'router' ? ROUTER_TIMEOUT : Duration.seconds(QUEUE_FUNCTIONS[name].timeoutSeconds))
    const maxReceiveCount = props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT
    const tracing = props.tracing ?? false
    this.metricsTarget = {
      namespace: props.metrics?.namespace ?? DEFAULT_METRICS_TARGET.namespace,
      service: props.metrics?.service ?? this.node.path,
    }

    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: PK, type: dynamodb.AttributeType.STRING },
      sortKey: { name: SK, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType.NEW_IMAGE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // Claim items expire through it; apps may set it to expire sessions.
      timeToLiveAttribute: TTL_ATTRIBUTE,
      ...tableDeletion(props),
    })

    const queue = (name: string, options: sqs.QueueProps): sqs.Queue =>
      new sqs.Queue(this, name, {
        encryption: sqs.QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        ...(options.fifo
          ? {
              // High-throughput FIFO: a limit per message group (session)
              // instead of 300 transactions per second per API action for the
              // whole queue. Deduplication IDs already carry the session.
              fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
              deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
            }
          : {}),
        ...options,
      })
    const deadLetterQueue = (name: string, fifo: boolean): sqs.Queue =>
      queue(name, {
        ...(fifo ? { fifo: true } : {}),
        retentionPeriod: Duration.seconds(DEAD_LETTER_RETENTION_SECONDS),
      })
    const functionQueue = (name: QueueFunction) => {
      const spec = QUEUE_FUNCTIONS[name]
      const dlq = deadLetterQueue(`${pascal(name)}DeadLetterQueue`, spec.fifo)
      const main = queue(`${pascal(name)}Queue`, {
        ...(spec.fifo ? { fifo: true } : {}),
        ...(name === 'ingress' ? { contentBasedDeduplication: true } : {}),
        visibilityTimeout: Duration.seconds(visibilityTimeoutSeconds(timeoutOf(name).toSeconds())),
        retentionPeriod: Duration.seconds(MESSAGE_RETENTION_SECONDS),
        deadLetterQueue: { queue: dlq, maxReceiveCount },
      })
      return { main, dlq }
    }
    const queues = Object.fromEntries(
      QUEUE_FUNCTION_NAMES.map((name) => [name, functionQueue(name)]),
    ) as Record<QueueFunction, { main: sqs.Queue; dlq: sqs.Queue }>
    this.laneQueues = Object.fromEntries(
      QUEUE_LANES.map((lane) => [lane, queues[lane].main]),
    ) as Record<LaneName, sqs.Queue>
    this.laneDeadLetterQueues = Object.fromEntries(
      QUEUE_LANES.map((lane) => [lane, queues[lane].dlq]),
    ) as Record<LaneName, sqs.Queue>
    this.ingressQueue = queues.ingress.main
    this.ingressDeadLetterQueue = queues.ingress.dlq
    this.timerQueue = queues.timers.main
    this.timerDeadLetterQueue = queues.timers.dlq
    this.schedulerDeadLetterQueue = deadLetterQueue('SchedulerDeadLetterQueue', false)
    this.routerFailureQueue = deadLetterQueue('RouterFailureQueue', false)

    this.scheduleGroup = new scheduler.ScheduleGroup(this, 'ScheduleGroup', {
      removalPolicy: RemovalPolicy.DESTROY,
    })
    this.schedulerRole = new iam.Role(this, 'SchedulerRole', {
      // Confused-deputy prevention: aws:SourceArn must be the schedule
      // *group's* ARN, not a schedule or name pattern, or Scheduler cannot
      // assume the role and neither the target nor the Scheduler DLQ is ever
      // written (EventBridge Scheduler user guide, "Confused deputy
      // prevention"; CDK's aws-scheduler-targets does the same).
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com', {
        conditions: {
          StringEquals: {
            'aws:SourceAccount': Stack.of(this).account,
            'aws:SourceArn': this.scheduleGroup.scheduleGroupArn,
          },
        },
      }),
      description: 'EventBridge Scheduler delivers due a2 timers to the timer queue',
    })
    this.timerQueue.grantSendMessages(this.schedulerRole)
    this.schedulerDeadLetterQueue.grantSendMessages(this.schedulerRole)

    const environment: Record<string, string> = {
      ...props.environment,
      // The same map the functions read back with readAwsEnvironment().
      ...environmentVariables({
        tableName: this.table.tableName,
        queueUrls: {
          admission: this.laneQueues.admission.queueUrl,
          generation: this.laneQueues.generation.queueUrl,
          tools: this.laneQueues.tools.queueUrl,
          handlers: this.laneQueues.handlers.queueUrl,
        },
        ingressQueueUrl: this.ingressQueue.queueUrl,
        timers: {
          queueUrl: this.timerQueue.queueUrl,
          queueArn: this.timerQueue.queueArn,
          scheduleGroup: this.scheduleGroup.scheduleGroupName as string,
          schedulerRoleArn: this.schedulerRole.roleArn,
          deadLetterQueueArn: this.schedulerDeadLetterQueue.queueArn,
        },
        agentExport: props.exportName ?? 'default',
        maxReceiveCount,
        metrics: this.metricsTarget,
        ...(props.modelTelemetry ? { modelTelemetry: true } : {}),
        ...(props.retention ? { retention: props.retention } : {}),
      }),
      // Powertools Tracer is a no-op without it (and X-Ray's SDK would
      // complain of missing trace data when the function is not traced).
      POWERTOOLS_TRACE_ENABLED: String(tracing),
      NODE_OPTIONS: '--enable-source-maps',
    }

    const projectRoot = resolve(props.projectRoot ?? process.cwd())
    const agentEntry = resolve(projectRoot, props.entry)
    const aliasTarget = `./${relative(projectRoot, agentEntry).split('\\').join('/')}`
    const fn = (
      name: string,
      handler: string,
      timeout: Duration,
      memorySize = props.memorySize ?? 1024,
    ): nodejs.NodejsFunction =>
      new nodejs.NodejsFunction(this, name, {
        entry: lambdaEntry(),
        handler,
        projectRoot,
        depsLockFilePath: lockFile(projectRoot),
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize,
        timeout,
        environment,
        tracing: tracing ? lambda.Tracing.ACTIVE : lambda.Tracing.DISABLED,
        loggingFormat: lambda.LoggingFormat.JSON,
        logGroup: new logs.LogGroup(this, `${name}Logs`, {
          retention: logs.RetentionDays.ONE_MONTH,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
        bundling: {
          format: nodejs.OutputFormat.ESM,
          target: 'node22',
          minify: true,
          // Stack traces name our files and lines; the sources themselves
          // stay out of the map, which would make every cold start (INIT is
          // billed) parse megabytes of them.
          sourceMap: true,
          sourcesContent: false,
          bundleAwsSDK: true,
          mainFields: ['module', 'main'],
          // Some bundled dependencies still `require()` Node built-ins.
          banner:
            "import { createRequire as __a2CreateRequire } from 'node:module'; const require = __a2CreateRequire(import.meta.url);",
          esbuildArgs: { '--alias:a2-aws-agent-module': aliasTarget },
        },
      })

    const queueFunctions = Object.fromEntries(
      QUEUE_FUNCTION_NAMES.map((name) => [
        name,
        fn(`${pascal(name)}Function`, QUEUE_FUNCTIONS[name].handler, timeoutOf(name)),
      ]),
    ) as Record<QueueFunction, nodejs.NodejsFunction>
    const functions = {
      http: fn('HttpFunction', 'http', HTTP_TIMEOUT),
      stream: fn(
        'StreamFunction',
        'http',
        STREAM_TIMEOUT,
        props.streamMemorySize ?? DEFAULT_STREAM_MEMORY_MB,
      ),
      router: fn('RouterFunction', 'router', timeoutOf('router')),
      ...queueFunctions,
    }
    this.functions = functions

    // Models and their keys: only the functions that need them get them.
    for (const statement of bedrockInvokeStatements(this, props.bedrockModels ?? [])) {
      functions.generation.addToRolePolicy(statement)
    }
    grantSecrets(this, functions, props.secrets ?? {}, props.environment ?? {})

    // The router reads the stream (granted by the event source) and sends
    // wake-ups. Its only use of the table's items is retention: once TTL has
    // deleted a session's head, it reads the session's partition and its ID
    // guards and deletes them, each batch in a transaction that checks the
    // head is still absent (eraseSession's headless mode). It never writes.
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
        filters: ROUTER_FILTER_PATTERNS.map((pattern) => lambda.FilterCriteria.filter(pattern)),
      }),
    )
    for (const lane of QUEUE_LANES) this.laneQueues[lane].grantSendMessages(functions.router)
    functions.router.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [
          'dynamodb:Query',
          'dynamodb:BatchGetItem',
          'dynamodb:ConditionCheckItem',
          'dynamodb:DeleteItem',
        ],
        resources: [this.table.tableArn],
      }),
    )

    // Least privilege per function: everything that appends reads and writes
    // the log and wakes lanes (the fast path); only the lanes run tools and
    // handlers, so only they set timers. The GET function only reads: it
    // streams the log, answers heads and claims, and wakes admission (a
    // reader's recovery), so it may read the table and send to the
    // admission queue, nothing else.
    const appendingFunctions = [
      functions.http,
      ...QUEUE_FUNCTION_NAMES.map((name) => functions[name]),
    ]
    const agentFunctions = [functions.http, functions.stream, ...appendingFunctions.slice(1)]
    for (const appending of appendingFunctions) {
      appending.addToRolePolicy(
        new iam.PolicyStatement({
          actions: [
            ...TABLE_READS,
            'dynamodb:PutItem',
            'dynamodb:UpdateItem',
            'dynamodb:ConditionCheckItem',
          ],
          resources: [this.table.tableArn],
        }),
      )
      for (const lane of QUEUE_LANES) this.laneQueues[lane].grantSendMessages(appending)
    }
    if (props.retention) {
      // Retention's heal on append: an append that meets a session whose head
      // TTL deleted erases what the session left, in transactions of Delete
      // actions that check the head is still absent (eraseSession's headless
      // mode), then starts the log over. A Delete in a transaction is
      // authorized as dynamodb:DeleteItem ("Permissions for Put, Update,
      // Delete, and Get actions are governed by the permissions used for the
      // underlying PutItem, UpdateItem, DeleteItem, and GetItem operations",
      // "Using IAM with DynamoDB transactions",
      // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis-iam.html),
      // so the appending functions may delete, but only inside a
      // TransactWriteItems (dynamodb:EnclosingOperation): never a lone
      // DeleteItem or a BatchWriteItem.
      for (const appending of appendingFunctions) {
        appending.addToRolePolicy(
          new iam.PolicyStatement({
            actions: ['dynamodb:DeleteItem'],
            resources: [this.table.tableArn],
            conditions: { StringEquals: { 'dynamodb:EnclosingOperation': 'TransactWriteItems' } },
          }),
        )
      }
    }
    functions.stream.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...TABLE_READS], resources: [this.table.tableArn] }),
    )
    this.laneQueues.admission.grantSendMessages(functions.stream)
    const scheduleArn = Stack.of(this).formatArn({
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
    })
    for (const lane of QUEUE_LANES) {
      const laneFunction = functions[lane]
      this.timerQueue.grantSendMessages(laneFunction)
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['scheduler:CreateSchedule', 'scheduler:GetSchedule'],
          resources: [scheduleArn],
        }),
      )
      laneFunction.addToRolePolicy(
        new iam.PolicyStatement({
          actions: ['iam:PassRole'],
          resources: [this.schedulerRole.roleArn],
          conditions: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      )
    }

    // Erasing a session (eraseAgentSession): cancel its schedules, then
    // delete every item of its partition and its ID guards (BatchWriteItem),
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
      fn.addEnvironment(
        ENVIRONMENT_VARIABLES.erase,
        eraseGranted && lane ? 'granted' : 'not-granted',
      )
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
            resources: [this.table.tableArn],
          }),
        )
      }
    }

    // Each queue feeds its function as deployed in QUEUE_FUNCTIONS (the
    // local runner plays the same settings). The event source grants
    // ChangeMessageVisibility, which the handlers use to lease their messages.
    const caps = QUEUE_FUNCTION_NAMES.map((name) => ({
      name,
      cap: queueCap(name, props.maxConcurrency?.[name]),
    }))
    for (const { name, cap } of caps) {
      const spec = QUEUE_FUNCTIONS[name]
      functions[name].addEventSource(
        new SqsEventSource(queues[name].main, {
          batchSize: spec.batchSize,
          reportBatchItemFailures: true,
          ...(cap === undefined ? {} : { maxConcurrency: cap }),
        }),
      )
    }
    const laneConcurrency = {
      capped: caps.reduce((total, { cap }) => total + (cap ?? 0), 0),
      uncapped: caps.filter(({ cap }) => cap === undefined).map(({ name }) => name),
    }
    let reservation: ReservedConcurrency | undefined
    if (props.streamConcurrency !== false) {
      reservation = new ReservedConcurrency(this, 'StreamConcurrency', {
        fn: functions.stream,
        requested: props.streamConcurrency ?? DEFAULT_STREAM_CONCURRENCY,
        lanes: lanesText(laneConcurrency),
      })
      this.streamConcurrency = reservation.reserved
      constructOutput(this, 'StreamConcurrency', {
        description:
          'GET stream concurrency reserved at this deploy (recomputed on every deploy), or why none was',
        value: reservation.note,
      })
    }
    smallQuotaWarning(this, props.lambdaConcurrencyQuota, lanesText(laneConcurrency))

    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    })
    const throttle = props.throttle ?? DEFAULT_THROTTLE
    this.api = new apigateway.RestApi(this, 'Api', {
      description: 'a2 agent: GET streams a session as SSE, POST pushes events',
      endpointConfiguration: { types: [apigateway.EndpointType.REGIONAL] },
      // Stage logging needs the account's API Gateway CloudWatch role
      // (AWS::ApiGateway::Account); without one the stage fails to create and
      // the stack rolls back in a fresh account. The role is retained when the
      // stack goes, since other APIs in the account may log through it.
      cloudWatchRole: props.apiGatewayCloudWatchRole ?? true,
      deployOptions: {
        stageName: props.stageName ?? 'prod',
        accessLogDestination: new apigateway.LogGroupLogDestination(accessLogs),
        accessLogFormat: apigateway.AccessLogFormat.jsonWithStandardFields(),
        // Execution logs for errors only: no request or response bodies.
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: throttle.rateLimit,
        throttlingBurstLimit: throttle.burstLimit,
      },
    })
    const auth = apiAuth(this, props.auth, [functions.http, functions.stream])
    if (auth.sessionKey) this.sessionKey = auth.sessionKey
    const resource = this.api.root.addResource('agent')
    resource.addMethod(
      'GET',
      new apigateway.LambdaIntegration(functions.stream, {
        responseTransferMode: apigateway.ResponseTransferMode.STREAM,
        timeout: STREAM_TIMEOUT,
      }),
      auth.methodOptions,
    )
    resource.addMethod(
      'POST',
      new apigateway.LambdaIntegration(functions.http, {
        responseTransferMode: apigateway.ResponseTransferMode.STREAM,
        timeout: Duration.seconds(29),
      }),
      auth.methodOptions,
    )
    this.url = this.api.urlForPath(resource.path)
    agentUrlOutput(this, this.url)

    // What `npm run verify -- --stack` reads to check the deployment.
    const verifyConfig: VerifyConfigInput = {
      path: this.node.path,
      url: this.url,
      region: Stack.of(this).region,
      scheduleGroup: this.scheduleGroup.scheduleGroupName as string,
      schedulerRoleArn: this.schedulerRole.roleArn,
      timerQueueArn: this.timerQueue.queueArn,
      timerQueueUrl: this.timerQueue.queueUrl,
      schedulerDeadLetterQueueArn: this.schedulerDeadLetterQueue.queueArn,
      streamLogGroup: functions.stream.logGroup.logGroupName,
      ...(props.bedrockModels?.length
        ? { bedrockModels: bedrockModelIds(props.bedrockModels) }
        : {}),
      concurrency: {
        lanes: laneConcurrency.capped,
        uncappedQueues: laneConcurrency.uncapped.length,
        ...(reservation
          ? {
              streamsRequested: reservation.requested,
              streamsReserved: reservation.reserved,
              accountLimit: reservation.accountLimit,
            }
          : {}),
      },
    }
    new CfnOutput(this, 'VerifyConfig', {
      description: VERIFY_OUTPUT_DESCRIPTION,
      value: Stack.of(this).toJsonString(verifyConfig),
    })

    const monitored: MonitoredParts = {
      target: this.metricsTarget,
      functions,
      router: functions.router,
      stream: functions.stream,
      deadLetterQueues: {
        ...Object.fromEntries(
          QUEUE_LANES.map((lane) => [`${pascal(lane)}DeadLetter`, this.laneDeadLetterQueues[lane]]),
        ),
        IngressDeadLetter: this.ingressDeadLetterQueue,
        TimersDeadLetter: this.timerDeadLetterQueue,
        SchedulerDeadLetter: this.schedulerDeadLetterQueue,
        RouterFailure: this.routerFailureQueue,
      },
    }
    this.alarms =
      props.alarms === false
        ? []
        : new A2AgentAlarms(this, 'Alarms', monitored, props.alarms ?? {}).alarms
    if (props.dashboard === true) {
      this.dashboard = new A2AgentDashboard(this, 'Dashboard', monitored, this.alarms).dashboard
    }

    acknowledgeFindings(this, {
      tracing,
      erase: eraseGranted,
      bundledFunctions: [...agentFunctions, functions.router],
      laneFunctions: QUEUE_LANES.map((lane) => functions[lane]),
      deadLetterQueues: [this.schedulerDeadLetterQueue, this.routerFailureQueue],
      scheduleArn,
      authType: typeof props.auth === 'string' ? props.auth : (props.auth?.type ?? 'capability'),
    })
  }
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1)
}

/** A queue's `MaximumConcurrency`: the prop's, or its default when capped by default; none for `false`. */
function queueCap(name: QueueFunction, prop: number | false | undefined): number | undefined {
  if (prop === false) return undefined
  if (prop === undefined) {
    const spec: QueueFunctionSpec = QUEUE_FUNCTIONS[name]
    return spec.capped ? spec.maxConcurrency : undefined
  }
  if (!Number.isInteger(prop) || prop < 2 || prop > 1000) {
    throw new Error(
      `a2: maxConcurrency.${name} is an event source mapping's MaximumConcurrency, a whole number from 2 to 1,000 (or false for none), not ${prop}`,
    )
  }
  return prop
}

/** How many invocations the queues' event sources may run, for people. */
function lanesText({ capped, uncapped }: { capped: number; uncapped: string[] }): string {
  return uncapped.length === 0
    ? `${capped} invocations in all`
    : `${capped} invocations in all on the capped queues, and one per session with work on ${uncapped.join(', ')}`
}

/**
 * The table's removal policy and deletion protection, which must agree.
 * DynamoDB refuses to delete a table while deletion protection is on,
 * whatever asks ("Using deletion protection",
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithTables.Basics.html#WorkingWithTables.Basics.DeletionProtection),
 * so a stack whose removal policy deletes the table (DESTROY, or SNAPSHOT,
 * which deletes after its snapshot) would end `cdk destroy` in
 * DELETE_FAILED with it on. moto does not enforce it; a template test pins
 * the pairing.
 */
function tableDeletion(props: Pick<A2AgentProps, 'removalPolicy' | 'deletionProtection'>): {
  removalPolicy: RemovalPolicy
  deletionProtection: boolean
} {
  const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN
  const deletes =
    removalPolicy === RemovalPolicy.DESTROY || removalPolicy === RemovalPolicy.SNAPSHOT
  if (deletes && props.deletionProtection === true) {
    throw new Error(
      `a2: removalPolicy ${removalPolicy.toUpperCase()} deletes the event log table when the stack goes, but deletionProtection: true makes DynamoDB refuse that delete, so cdk destroy would end in DELETE_FAILED. Leave deletionProtection out (it is off by default with ${removalPolicy.toUpperCase()}), or keep the table with RemovalPolicy.RETAIN.`,
    )
  }
  return { removalPolicy, deletionProtection: props.deletionProtection ?? !deletes }
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
