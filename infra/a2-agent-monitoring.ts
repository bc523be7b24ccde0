import { Duration } from 'aws-cdk-lib'
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch'
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions'
import type * as lambda from 'aws-cdk-lib/aws-lambda'
import type * as sns from 'aws-cdk-lib/aws-sns'
import type * as sqs from 'aws-cdk-lib/aws-sqs'
import { Construct } from 'constructs'
import { AGENT_METRICS, type AgentMetric } from '../shared/agent/wiring/agent-metrics.ts'
import type { MetricsTarget } from '../shared/aws/lambda/cloudwatch-metrics.ts'

export interface A2AgentAlarmsProps {
  /** An SNS topic every alarm notifies when it goes off and when it recovers. Default: none. */
  topic?: sns.ITopic
  /**
   * Failed model steps per turn started, over five minutes, above which the
   * turn-failure alarm goes off in two of three periods (default 0.1).
   */
  turnFailureRate?: number
  /** How far behind the stream router may fall, in milliseconds, for five minutes (default 60,000). */
  routerIteratorAgeMs?: number
  /**
   * Which functions' throttles alarm (default `'api'`: the http and stream
   * functions, where a throttle is a refused POST or GET). `'all'` adds the
   * router and the queue functions, seven alarms, $0.70 a month at $0.10
   * each: their throttles already show as the router falling behind (the
   * iterator age alarm) and as messages that come back and end in a
   * dead-letter queue (the DLQ alarms), later.
   */
  throttles?: 'api' | 'all'
}

/** The functions whose throttles alarm by default: a throttle there is a request refused. */
const API_FUNCTIONS: readonly string[] = ['http', 'stream']

const DEFAULT_TURN_FAILURE_RATE = 0.1
const DEFAULT_ROUTER_ITERATOR_AGE_MS = 60_000

/** What the monitoring watches, by the names its alarms and widgets use. */
export interface MonitoredParts {
  target: MetricsTarget
  functions: Record<string, lambda.IFunction>
  router: lambda.IFunction
  /** Functions whose concurrency is the number of open GET streams. */
  stream: lambda.IFunction
  deadLetterQueues: Record<string, sqs.IQueue>
}

const FIVE_MINUTES = Duration.minutes(5)

/** One of the agent's own figures, as CloudWatch has it from the functions' EMF lines. */
function agentMetric(
  target: MetricsTarget,
  name: AgentMetric,
  options: { statistic?: string; period?: Duration; label?: string } = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: target.namespace,
    metricName: name,
    dimensionsMap: { service: target.service },
    statistic: options.statistic ?? (AGENT_METRICS[name] === 'Count' ? 'Sum' : 'p90'),
    period: options.period ?? FIVE_MINUTES,
    ...(options.label ? { label: options.label } : {}),
  })
}

/** Failed model steps per turn started (0 when no turn started). */
function turnFailureRate(target: MetricsTarget): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: 'IF(FILL(started, 0) > 0, FILL(failed, 0) / started, 0)',
    usingMetrics: {
      started: agentMetric(target, 'TurnsStarted'),
      failed: agentMetric(target, 'TurnsFailed'),
    },
    label: 'Failed model steps per turn started',
    period: FIVE_MINUTES,
  })
}

/**
 * The alarms of an agent: a message in any dead-letter queue (a lane, the
 * ingress, the timers, Scheduler's, the router's failures), the router
 * falling behind the table's stream, any Lambda error or throttle per
 * function, and turns failing above a rate (from the functions' EMF). Each
 * says in its description what to look at (docs/operations.md).
 */
export class A2AgentAlarms extends Construct {
  readonly alarms: cloudwatch.Alarm[] = []

  constructor(scope: Construct, id: string, parts: MonitoredParts, props: A2AgentAlarmsProps = {}) {
    super(scope, id)
    const add = (name: string, alarm: cloudwatch.AlarmProps): void => {
      const created = new cloudwatch.Alarm(this, name, alarm)
      if (props.topic) {
        created.addAlarmAction(new actions.SnsAction(props.topic))
        created.addOkAction(new actions.SnsAction(props.topic))
      }
      this.alarms.push(created)
    }

    for (const [name, queue] of Object.entries(parts.deadLetterQueues)) {
      add(`${name}Messages`, {
        metric: queue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(1),
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `a2: a message is in the ${name} queue: work that failed every attempt. See "Dead letters" in docs/operations.md.`,
      })
    }

    add('RouterIteratorAge', {
      metric: parts.router.metric('IteratorAge', {
        period: Duration.minutes(1),
        statistic: 'Maximum',
      }),
      threshold: props.routerIteratorAgeMs ?? DEFAULT_ROUTER_ITERATOR_AGE_MS,
      evaluationPeriods: 5,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription:
        "a2: the stream router is behind the table's stream: lanes are woken late when the fast path failed.",
    })

    for (const [name, fn] of Object.entries(parts.functions)) {
      add(`${pascal(name)}Errors`, {
        metric: fn.metricErrors({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `a2: the ${name} function failed an invocation (a crash or a timeout, not a failed record).`,
      })
      if ((props.throttles ?? 'api') === 'api' && !API_FUNCTIONS.includes(name)) continue
      add(`${pascal(name)}Throttles`, {
        metric: fn.metricThrottles({ period: FIVE_MINUTES, statistic: 'Sum' }),
        threshold: 1,
        evaluationPeriods: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
        alarmDescription: `a2: the ${name} function was throttled (account concurrency, or the stream function's reserved concurrency).`,
      })
    }

    add('TurnFailures', {
      metric: turnFailureRate(parts.target),
      threshold: props.turnFailureRate ?? DEFAULT_TURN_FAILURE_RATE,
      evaluationPeriods: 3,
      datapointsToAlarm: 2,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription:
        'a2: model steps are failing (the provider, its quota, a bad model ID). Turns wait for a retry.',
    })
  }
}

/** A CloudWatch dashboard of one agent: its turns, model, tools, log, wake-ups, streams and health. */
export class A2AgentDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard

  constructor(scope: Construct, id: string, parts: MonitoredParts, alarms: cloudwatch.IAlarm[]) {
    super(scope, id)
    const { target } = parts
    const figure = (name: AgentMetric, statistic?: string) =>
      agentMetric(target, name, {
        ...(statistic ? { statistic, label: `${name} ${statistic}` } : { label: name }),
      })
    const graph = (title: string, left: cloudwatch.IMetric[], right: cloudwatch.IMetric[] = []) =>
      new cloudwatch.GraphWidget({ title, left, right, width: 8, height: 6 })
    const perFunction = (title: string, metric: (fn: lambda.IFunction) => cloudwatch.Metric) =>
      new cloudwatch.GraphWidget({
        title,
        left: Object.entries(parts.functions).map(([name, fn]) =>
          metric(fn).with({ label: name, period: FIVE_MINUTES }),
        ),
        width: 8,
        height: 6,
      })

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      defaultInterval: Duration.hours(3),
    })
    if (alarms.length > 0) {
      this.dashboard.addWidgets(
        new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms, width: 24, height: 4 }),
      )
    }
    this.dashboard.addWidgets(
      graph('Turns', [figure('TurnsStarted'), figure('TurnsCompleted'), figure('TurnsFailed')]),
      graph('Turn failures', [turnFailureRate(target)]),
      graph('Time to first token (ms)', [
        figure('TimeToFirstToken', 'p50'),
        figure('TimeToFirstToken', 'p90'),
        figure('TimeToFirstToken', 'p99'),
      ]),
    )
    this.dashboard.addWidgets(
      graph('Tokens', [figure('InputTokens'), figure('OutputTokens')]),
      graph('Tool calls', [figure('ToolCalls'), figure('ToolFailures')], [figure('DeadLetters')]),
      graph('Log appends', [figure('Appends')], [figure('AppendWriteUnits')]),
    )
    this.dashboard.addWidgets(
      graph('Wake-up latency (ms)', [
        figure('WakeUpLatency', 'p50'),
        figure('WakeUpLatency', 'p90'),
        figure('WakeUpLatency', 'Maximum'),
      ]),
      graph(
        'GET streams',
        [
          figure('StreamsOpened'),
          figure('StreamsEnded'),
          parts.stream.metric('ConcurrentExecutions', {
            statistic: 'Maximum',
            period: FIVE_MINUTES,
            label: 'Open (stream function concurrency)',
          }),
        ],
        [figure('StreamDuration', 'p90')],
      ),
      graph(
        'Dead-letter queues (messages visible)',
        Object.entries(parts.deadLetterQueues).map(([name, queue]) =>
          queue.metricApproximateNumberOfMessagesVisible({
            statistic: 'Maximum',
            period: FIVE_MINUTES,
            label: name,
          }),
        ),
      ),
    )
    this.dashboard.addWidgets(
      perFunction('Lambda errors', (fn) => fn.metricErrors({ statistic: 'Sum' })),
      perFunction('Lambda throttles', (fn) => fn.metricThrottles({ statistic: 'Sum' })),
      graph('Stream router iterator age (ms)', [
        parts.router.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }),
      ]),
    )
  }
}

function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1)
}
