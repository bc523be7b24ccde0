import type { A2AgentProps } from '../../infra/index.ts'
import type { Resource } from './template.ts'

// What a deployed stack costs a month while nothing happens, from its
// template, at us-east-1 list prices with free tiers ignored (the same
// convention as the per-turn figures). Requests, invocations and storage of
// an empty table are $0 idle; what remains is priced per resource.

/** CloudWatch: per alarm metric a month (standard resolution), high resolution, composite; a dashboard. https://aws.amazon.com/cloudwatch/pricing/ */
const USD_PER_ALARM_METRIC = 0.1
const USD_PER_HIGH_RESOLUTION_ALARM_METRIC = 0.3
const USD_PER_COMPOSITE_ALARM = 0.5
const USD_PER_DASHBOARD = 3
/** Secrets Manager, per secret a month: https://aws.amazon.com/secrets-manager/pricing/ */
const USD_PER_SECRET = 0.4
/** KMS, per customer managed key a month: https://aws.amazon.com/kms/pricing/ */
const USD_PER_KMS_KEY = 1
/** SQS per request (a receive that finds nothing is one): https://aws.amazon.com/sqs/pricing/ */
const USD_PER_SQS_REQUEST = { fifo: 0.5 / 1e6, standard: 0.4 / 1e6 }

/**
 * Lambda's pollers of an SQS event source mapping on an idle queue: five,
 * and as few as two when traffic is low, an optimization "not available
 * when you enable the maximum concurrency setting" (Lambda developer guide,
 * "Configuring scaling behavior for SQS event source mappings":
 * https://docs.aws.amazon.com/lambda/latest/dg/services-sqs-scaling.html).
 */
export const IDLE_POLLERS = { capped: 5, uncapped: 2 }
/** Each poller long-polls for 20 s (SQS's longest wait), so an idle one sends three receives a minute. An assumption: AWS does not state Lambda's wait. */
export const LONG_POLL_SECONDS = 20
const SECONDS_A_MONTH = 30 * 24 * 3600

/**
 * The props that give an A2Agent the defaults it had before issue 26: a
 * dashboard, every function's throttles alarmed, every queue capped.
 */
export const DEFAULTS_BEFORE_ISSUE_26: Partial<A2AgentProps> = {
  dashboard: true,
  alarms: { throttles: 'all' },
  maxConcurrency: { admission: 20, handlers: 10, ingress: 5 },
}

export interface IdleCostLine {
  item: string
  count: number
  usd: number
}

/** The idle monthly cost of a template, item by item, and in all. */
export function idleMonthlyCost(template: Record<string, unknown>): {
  lines: IdleCostLine[]
  usd: number
} {
  const byId = template.Resources as Record<string, Resource>
  const resources = Object.values(byId)
  const ofType = (type: string) => resources.filter((resource) => resource.Type === type)
  const lines: IdleCostLine[] = []
  const line = (item: string, count: number, usd: number) => {
    if (count > 0) lines.push({ item, count, usd })
  }

  let standard = 0
  let high = 0
  for (const alarm of ofType('AWS::CloudWatch::Alarm')) {
    const metrics = (alarm.Properties.Metrics as { MetricStat?: { Period?: number } }[] | undefined)
      ?.filter((metric) => metric.MetricStat)
      .map((metric) => metric.MetricStat?.Period ?? 60) ?? [
      (alarm.Properties.Period as number | undefined) ?? 60,
    ]
    for (const period of metrics) {
      if (period < 60) high++
      else standard++
    }
  }
  line('CloudWatch alarm metrics', standard, standard * USD_PER_ALARM_METRIC)
  line(
    'CloudWatch high-resolution alarm metrics',
    high,
    high * USD_PER_HIGH_RESOLUTION_ALARM_METRIC,
  )
  const composite = ofType('AWS::CloudWatch::CompositeAlarm').length
  line('CloudWatch composite alarms', composite, composite * USD_PER_COMPOSITE_ALARM)
  const dashboards = ofType('AWS::CloudWatch::Dashboard').length
  line('CloudWatch dashboards', dashboards, dashboards * USD_PER_DASHBOARD)
  const secrets = ofType('AWS::SecretsManager::Secret').length
  line('Secrets Manager secrets', secrets, secrets * USD_PER_SECRET)
  const keys = ofType('AWS::KMS::Key').length
  line('KMS keys', keys, keys * USD_PER_KMS_KEY)

  const receivesPerPoller = SECONDS_A_MONTH / LONG_POLL_SECONDS
  const pollers = new Map<string, { count: number; usd: number }>()
  for (const mapping of ofType('AWS::Lambda::EventSourceMapping')) {
    const source = (mapping.Properties.EventSourceArn as { 'Fn::GetAtt'?: [string, string] })[
      'Fn::GetAtt'
    ]
    const queue = source ? byId[source[0]] : undefined
    if (queue?.Type !== 'AWS::SQS::Queue') continue // a table's stream: Lambda reads it for free
    const fifo = queue.Properties.FifoQueue === true
    const capped =
      (mapping.Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined)
        ?.MaximumConcurrency !== undefined
    const count = capped ? IDLE_POLLERS.capped : IDLE_POLLERS.uncapped
    const key = `SQS empty receives, ${fifo ? 'FIFO' : 'standard'} queue ${capped ? 'with a MaximumConcurrency (5 pollers)' : 'uncapped (2 pollers)'}`
    const entry = pollers.get(key) ?? { count: 0, usd: 0 }
    entry.count++
    entry.usd +=
      count * receivesPerPoller * (fifo ? USD_PER_SQS_REQUEST.fifo : USD_PER_SQS_REQUEST.standard)
    pollers.set(key, entry)
  }
  for (const [item, { count, usd }] of [...pollers].sort()) line(item, count, usd)
  return { lines, usd: lines.reduce((total, entry) => total + entry.usd, 0) }
}
