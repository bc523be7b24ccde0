// Pure data and a port, no imports: the runtime records these figures, the
// Lambda adapter writes them as CloudWatch EMF, and the CDK construct reads
// the same table at synth time for its alarms and dashboard.

/**
 * Every figure an agent reports, with its CloudWatch unit and what one
 * value of it is. Who records it is said in docs/operations.md.
 */
export const AGENT_METRICS = {
  /** A turn began: the controller committed `turn.start`. */
  TurnsStarted: 'Count',
  /** A turn's response ended (`ai.message.completed`). */
  TurnsCompleted: 'Count',
  /** A model step failed (`ai.generation.completed`, `failed`): its turn waits for a retry. */
  TurnsFailed: 'Count',
  /** From a model step being requested to the model's first content chunk (first attempts only). */
  TimeToFirstToken: 'Milliseconds',
  /** Prompt tokens a model call used, as its provider reported them. */
  InputTokens: 'Count',
  /** Tokens a model call generated. */
  OutputTokens: 'Count',
  /** A tool call the model made (`ai.tool.called`). */
  ToolCalls: 'Count',
  /** A tool call's final result was an error. */
  ToolFailures: 'Count',
  /** A lane gave up on its work and recorded it on the session (`ai.handler.dead-lettered`). */
  DeadLetters: 'Count',
  /** An append the lanes made (one transaction on DynamoDB). */
  Appends: 'Count',
  /** The DynamoDB write request units of those appends, estimated from their items' sizes. */
  AppendWriteUnits: 'Count',
  /** From a wake-up message being sent to its lane starting on it (first receives only). */
  WakeUpLatency: 'Milliseconds',
  /** A GET opened an SSE stream. */
  StreamsOpened: 'Count',
  /** An SSE stream ended (the client left, the stream's time was up, or the deadline). */
  StreamsEnded: 'Count',
  /** How long an SSE stream was open. */
  StreamDuration: 'Milliseconds',
} as const satisfies Record<string, 'Count' | 'Milliseconds'>

export type AgentMetric = keyof typeof AGENT_METRICS

/**
 * Where an agent's figures go. Recording must be cheap and must never
 * throw into the runtime; `flush` writes what was recorded, for sinks that
 * buffer (the Lambda adapter writes one EMF log line per flush).
 *
 * @example
 * const seen: [AgentMetric, number][] = []
 * agent({ name: 'support-agent', model, metrics: { record: (metric, value) => seen.push([metric, value]) } })
 */
export interface AgentMetrics {
  record(metric: AgentMetric, value: number): void
  flush?(): void
}

/** The default: figures go nowhere. */
export const NO_METRICS: AgentMetrics = { record: () => {} }

/** `metrics`, with a failing `record` or `flush` ignored: a figure is never worth a failed turn. */
export function safeMetrics(metrics: AgentMetrics): AgentMetrics {
  return {
    record(metric, value) {
      try {
        metrics.record(metric, value)
      } catch {}
    },
    flush() {
      try {
        metrics.flush?.()
      } catch {}
    },
  }
}
