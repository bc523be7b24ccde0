import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import type { AgentMetric, AgentMetrics } from './agent-metrics.ts'

/**
 * The figures a batch of appended events stands for: the turn, token, tool
 * and dead-letter counts are facts the lanes write into the log anyway, so
 * they are read off the events as they are stored, in one place.
 * @internal Exported for its test (knip --production).
 */
export function metricsOfEvents(events: readonly StoredEvent[]): [AgentMetric, number][] {
  const figures: [AgentMetric, number][] = []
  const tokens = (usage: unknown): void => {
    const { inputTokens, outputTokens } = (usage ?? {}) as Record<string, unknown>
    if (typeof inputTokens === 'number') figures.push(['InputTokens', inputTokens])
    if (typeof outputTokens === 'number') figures.push(['OutputTokens', outputTokens])
  }
  for (const { type, payload } of events) {
    const fields = payload as Record<string, unknown>
    switch (type) {
      case 'ai.control.committed': {
        const changes = (fields.changes ?? []) as { op: string }[]
        const started = changes.filter((change) => change.op === 'turn.start').length
        if (started > 0) figures.push(['TurnsStarted', started])
        break
      }
      case 'ai.message.completed':
        figures.push(['TurnsCompleted', 1])
        break
      case 'ai.generation.completed':
        if (fields.outcome === 'failed') figures.push(['TurnsFailed', 1])
        tokens(fields.usage)
        break
      // A summary is a model call too, billed like any other.
      case 'ai.compaction.completed':
        tokens(fields.usage)
        break
      case 'ai.tool.called':
        figures.push(['ToolCalls', 1])
        break
      case 'ai.tool.result':
        // Preliminary output is always `output`: an error is final.
        if (fields.outcome === 'error') figures.push(['ToolFailures', 1])
        break
      case 'ai.handler.dead-lettered':
        figures.push(['DeadLetters', 1])
        break
    }
  }
  return figures
}

/**
 * The store, recording each append that wrote something: one `Appends`, its
 * `AppendWriteUnits` where the store tells them, and what its events stand
 * for (`metricsOfEvents`). A replay wrote nothing and counts nothing.
 * Every other method is the store's own.
 */
export function meteredStore(store: EventStore, metrics: AgentMetrics): EventStore {
  const append: EventStore['append'] = async (sessionId, events, options) => {
    const result = await store.append(sessionId, events, options)
    if (!result.replayed && (events.length > 0 || options?.cursor)) {
      metrics.record('Appends', 1)
      if (result.writeUnits !== undefined) metrics.record('AppendWriteUnits', result.writeUnits)
      for (const [metric, value] of metricsOfEvents(result.events)) metrics.record(metric, value)
    }
    return result
  }
  return new Proxy(store, {
    get(target, key) {
      if (key === 'append') return append
      const value = Reflect.get(target, key, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
