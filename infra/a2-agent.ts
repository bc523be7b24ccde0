import { CfnOutput, Duration, Lazy, Stack } from 'aws-cdk-lib'
import type * as apigateway from 'aws-cdk-lib/aws-apigateway'
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch'
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb'
import type * as iam from 'aws-cdk-lib/aws-iam'
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs'
import type * as scheduler from 'aws-cdk-lib/aws-scheduler'
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import { Construct } from 'constructs'
import {
  DEFAULT_METRICS_TARGET,
  environmentVariables,
} from '../shared/aws/environment-variables.ts'
import {
  DEFAULT_MAX_RECEIVE_COUNT,
  QUEUE_FUNCTIONS,
  QUEUE_LANES,
  type QueueFunction,
} from '../shared/aws/pipeline-functions.ts'
import { VERIFY_OUTPUT_DESCRIPTION, type VerifyConfigInput } from '../shared/aws/verify-output.ts'
import { A2AgentAlarms, A2AgentDashboard, type MonitoredParts } from './a2-agent-monitoring.ts'
import { acknowledgeFindings } from './a2-agent-nag.ts'
import type { A2AgentProps, LaneName, TimedFunction } from './a2-agent-props.ts'
import { agentApi } from './agent-api.ts'
import { lanesText, queueEventSources } from './agent-event-sources.ts'
import { agentFunctions } from './agent-functions.ts'
import { grantAgentPermissions } from './agent-permissions.ts'
import { agentQueues, type FunctionQueue } from './agent-queues.ts'
import { eventLogTable } from './agent-table.ts'
import { agentTimers } from './agent-timers.ts'
import { constructOutput } from './agent-url-output.ts'
import { bedrockInvokeStatements, bedrockModelIds } from './bedrock-grants.ts'
import { operatorGrant } from './operator-grants.ts'
import { pascal } from './pascal.ts'
import { ReservedConcurrency, smallQuotaWarning } from './reserved-concurrency.ts'
import { grantSecrets } from './secrets.ts'

export type { A2AgentProps, LaneName, TimedFunction } from './a2-agent-props.ts'

const ROUTER_TIMEOUT = Duration.minutes(1)
/** Open SSE streams reserved (and capped) by default, when the account can spare them. */
const DEFAULT_STREAM_CONCURRENCY = 100
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
  /** The ARN pattern of the agent's schedules (`schedule/<group>/*`). */
  private readonly scheduleArn: string

  constructor(scope: Construct, id: string, props: A2AgentProps) {
    super(scope, id)
    // Every resource is created in this construct's scope with the ID it
    // always had, whichever module makes it: their logical IDs, and so the
    // table and queues of a deployed agent, survive an upgrade.
    const timeoutOf = (name: TimedFunction): Duration =>
      props.timeouts?.[name] ??
      (name === 'router' ? ROUTER_TIMEOUT : Duration.seconds(QUEUE_FUNCTIONS[name].timeoutSeconds))
    const maxReceiveCount = props.maxReceiveCount ?? DEFAULT_MAX_RECEIVE_COUNT
    const tracing = props.tracing ?? false
    this.metricsTarget = {
      namespace: props.metrics?.namespace ?? DEFAULT_METRICS_TARGET.namespace,
      service: props.metrics?.service ?? this.node.path,
    }

    // 1. The log, the queues and the timers' Scheduler side.
    this.table = eventLogTable(this, props)
    const queues = agentQueues(this, { timeoutOf, maxReceiveCount })
    const byLane = <Q>(pick: (queue: FunctionQueue) => Q) =>
      Object.fromEntries(
        QUEUE_LANES.map((lane) => [lane, pick(queues.byFunction[lane])]),
      ) as Record<LaneName, Q>
    this.laneQueues = byLane((queue) => queue.main)
    this.laneDeadLetterQueues = byLane((queue) => queue.dlq)
    this.ingressQueue = queues.byFunction.ingress.main
    this.ingressDeadLetterQueue = queues.byFunction.ingress.dlq
    this.timerQueue = queues.byFunction.timers.main
    this.timerDeadLetterQueue = queues.byFunction.timers.dlq
    this.schedulerDeadLetterQueue = queues.schedulerDeadLetterQueue
    this.routerFailureQueue = queues.routerFailureQueue
    const timers = agentTimers(this, {
      timerQueue: this.timerQueue,
      schedulerDeadLetterQueue: this.schedulerDeadLetterQueue,
    })
    this.scheduleGroup = timers.scheduleGroup
    this.schedulerRole = timers.schedulerRole

    // 2. The functions, told where everything is.
    const environment: Record<string, string> = {
      ...props.environment,
      // The same map the functions read back with readAwsEnvironment().
      ...environmentVariables({
        tableName: this.table.tableName,
        queueUrls: byLane((queue) => queue.main.queueUrl),
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
    const functions = agentFunctions(this, props, { environment, tracing, timeoutOf })
    this.functions = functions

    // 3. What each may do, and what feeds it.
    // Models and their keys: only the functions that need them get them.
    for (const statement of bedrockInvokeStatements(this, props.bedrockModels ?? [])) {
      functions.generation.addToRolePolicy(statement)
    }
    grantSecrets(this, functions, props.secrets ?? {}, props.environment ?? {})
    const {
      scheduleArn,
      agentFunctions: bundled,
      eraseGranted,
    } = grantAgentPermissions(this, props, {
      table: this.table,
      functions,
      laneQueues: this.laneQueues,
      timerQueue: this.timerQueue,
      routerFailureQueue: this.routerFailureQueue,
      scheduleGroup: this.scheduleGroup,
      schedulerRole: this.schedulerRole,
    })
    this.scheduleArn = scheduleArn
    const laneConcurrency = queueEventSources(props, functions, queues.byFunction)
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

    // 4. The API, and what verify and operators read.
    const api = agentApi(this, props, functions)
    this.api = api.api
    this.url = api.url
    if (api.sessionKey) this.sessionKey = api.sessionKey

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
      routerLogGroup: functions.router.logGroup.logGroupName,
      // Read at synth, after the alarms exist and whatever actions the app
      // gave them since: verify warns when they notify no one.
      alarms: {
        count: Lazy.number({ produce: () => alarmFigures(this.alarms).count }),
        metrics: Lazy.number({ produce: () => alarmFigures(this.alarms).metrics }),
        notifying: Lazy.number({ produce: () => alarmFigures(this.alarms).notifying }),
      },
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
      bundledFunctions: [...bundled, functions.router],
      laneFunctions: QUEUE_LANES.map((lane) => functions[lane]),
      deadLetterQueues: [this.schedulerDeadLetterQueue, this.routerFailureQueue],
      scheduleArn,
      authType: typeof props.auth === 'string' ? props.auth : (props.auth?.type ?? 'capability'),
    })
  }

  /**
   * Lets `grantee` run `npx a2-aws erase <session> --table <this table>
   * --schedule-group <this group>`: read the session, overwrite its events
   * with tombstones, delete its other items and ID guards, and cancel its
   * schedules. The same policy as JSON: docs/operations.md, "What the
   * commands need".
   *
   * @example
   * support.grantErase(new iam.Role(stack, 'Privacy', { assumedBy: new iam.AccountRootPrincipal() }))
   */
  grantErase(grantee: iam.IGrantable): iam.Grant {
    return operatorGrant(grantee, 'erase', this.operatorResources())
  }

  /** Lets `grantee` run `npx a2-aws inspect <session> --table`: it reads, nothing else. */
  grantInspect(grantee: iam.IGrantable): iam.Grant {
    return operatorGrant(grantee, 'inspect', this.operatorResources())
  }

  /** Lets `grantee` run `npx a2-aws export <session> --table`: it reads, nothing else. */
  grantExport(grantee: iam.IGrantable): iam.Grant {
    return operatorGrant(grantee, 'export', this.operatorResources())
  }

  /** Lets `grantee` run `npx a2-aws import <file> --table`: it reads and appends to an empty session. */
  grantImport(grantee: iam.IGrantable): iam.Grant {
    return operatorGrant(grantee, 'import', this.operatorResources())
  }

  private operatorResources(): { tableArn: string; scheduleArn: string } {
    return { tableArn: this.table.tableArn, scheduleArn: this.scheduleArn }
  }
}

/**
 * How many alarms, on how many metrics (what CloudWatch bills: one per
 * metric, a math expression's each), and how many have an alarm action.
 */
function alarmFigures(alarms: readonly cloudwatch.Alarm[]): {
  count: number
  metrics: number
  notifying: number
} {
  let metrics = 0
  let notifying = 0
  for (const alarm of alarms) {
    const cfn = alarm.node.defaultChild as cloudwatch.CfnAlarm
    const stack = Stack.of(alarm)
    const queries = stack.resolve(cfn.metrics) as
      | { metricStat?: unknown; MetricStat?: unknown }[]
      | undefined
    metrics += queries ? queries.filter((query) => query.metricStat ?? query.MetricStat).length : 1
    const actions = stack.resolve(cfn.alarmActions) as unknown[] | undefined
    if (actions && actions.length > 0) notifying++
  }
  return { count: alarms.length, metrics, notifying }
}
