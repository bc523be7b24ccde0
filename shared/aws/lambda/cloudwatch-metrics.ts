import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics'
import { AGENT_METRICS, type AgentMetrics } from '../../agent/wiring/agent-metrics.ts'

/** Where an agent's figures go in CloudWatch: the metrics namespace and the `service` dimension. */
export interface MetricsTarget {
  namespace: string
  service: string
}

/** A sink that buffers an invocation's figures until `flush`. */
export interface InvocationMetrics extends AgentMetrics {
  flush(): void
  /**
   * Facts every flush carries beside the figures (the agent's version): EMF
   * metadata, so CloudWatch Logs Insights can group figures by version
   * without a dimension per deploy (each new dimension value is a new
   * custom metric, billed by the month).
   */
  describe?(facts: Readonly<Record<string, string>>): void
}

/**
 * The agent's figures as CloudWatch metrics, through Powertools Metrics:
 * `flush` writes the invocation's figures as one EMF line on stdout, which
 * CloudWatch Logs turns into metrics (no PutMetricData call, nothing in the
 * invocation's path). Dimension: `service` alone, so an agent's
 * custom metrics are one per name whatever its functions.
 */
export function cloudWatchMetrics(target: MetricsTarget): InvocationMetrics {
  const metrics = new Metrics({ namespace: target.namespace, serviceName: target.service })
  let facts: Readonly<Record<string, string>> = {}
  return {
    record(metric, value) {
      metrics.addMetric(metric, MetricUnit[AGENT_METRICS[metric]], value)
    },
    flush() {
      // An invocation that recorded nothing writes nothing (Powertools would warn).
      if (!metrics.hasStoredMetrics()) return
      // Powertools clears metadata with each publish: set it for this one.
      for (const [key, value] of Object.entries(facts)) metrics.addMetadata(key, value)
      metrics.publishStoredMetrics()
    },
    describe(given) {
      facts = given
    },
  }
}
