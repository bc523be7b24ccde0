import type { StoredEvent } from '../../log/event.ts'
import type { ModelSpan } from './sim-model.ts'
import type { ToolLedger } from './workload-agent.ts'

/**
 * The oracles of what the user and the model asked for, not of what the log
 * says happened: checking a log against itself passes a log that lost an
 * event, or a run whose effect another call's key swallowed.
 */

/** The workload's services: what a tool's run performs, under which key. */
const SERVICES: Record<string, { service: string; key: (key: string) => string }> = {
  charge: { service: 'payments', key: (key) => key },
  email: { service: 'email', key: (key) => `${key}:email` },
}

interface CallFacts {
  sessionId: string
  events: readonly StoredEvent[]
  tools: ToolLedger
}

/**
 * Effects per intent. The model asks for one charge (or one email) in a
 * turn: that is the intent. Each call whose output is recorded had its own
 * effect performed, by its own runs (a key another call used first
 * deduplicates it away: the charge the user saw confirmed never happened);
 * a turn's intent was carried out at most once (a step asked again under a
 * new call ID charges twice, though each call's key is its own); and no
 * effect was performed for a call the log does not hold.
 */
export function brokenEffects({ sessionId, events, tools }: CallFacts): string[] {
  const life = events[0]?.life
  if (life === undefined) return []
  const broken: string[] = []
  const called = new Map<string, { turnId: string; identity: string }>()
  for (const event of events) {
    if (event.type !== 'ai.tool.called') continue
    const { toolCallId, generationId, turnId } = event.payload as Record<string, string>
    called.set(event.id, { turnId: turnId ?? '', identity: `${generationId}\u0000${toolCallId}` })
  }
  const outputs = new Set(
    events
      .filter((event) => event.type === 'ai.tool.result')
      .filter((event) => (event.payload as { outcome: string }).outcome === 'output')
      .map((event) => {
        const { toolCallId, generationId } = event.payload as Record<string, string>
        return `${generationId}\u0000${toolCallId}`
      }),
  )
  for (const [call, keys] of tools.keys) {
    const [toolName = '', session, callId = '', ranIn] = call.split('\u0000')
    const service = SERVICES[toolName]
    if (session !== sessionId || ranIn !== life || !service) continue
    const identity = called.get(callId)?.identity
    if (!identity || !outputs.has(identity)) continue
    for (const key of keys) {
      const effect = `${service.service}\u0000${sessionId}\u0000${service.key(key)}`
      const by = tools.performedBy.get(effect)
      if (by === undefined)
        broken.push(`${toolName} call ${callId} has its output recorded, but no effect`)
      else if (by !== call)
        broken.push(
          `${toolName} call ${callId} has its output recorded, but its effect was never performed: its key was ${describeCall(by)}'s, whose ${service.service} effect it deduplicated to`,
        )
    }
  }
  // Per turn: the effects this life's calls performed, by service.
  const perTurn = new Map<string, string[]>()
  for (const [effect, by] of tools.performedBy) {
    const [service, session] = effect.split('\u0000')
    const [toolName = '', , callId = '', ranIn] = by.split('\u0000')
    if (session !== sessionId || ranIn !== life || SERVICES[toolName]?.service !== service) continue
    const turnId = called.get(callId)?.turnId
    if (turnId === undefined) {
      broken.push(
        `${service} performed for ${toolName} call ${callId}, which the log does not hold`,
      )
      continue
    }
    const intent = `${turnId}\u0000${service}`
    perTurn.set(intent, [...(perTurn.get(intent) ?? []), callId])
  }
  for (const [intent, callIds] of perTurn) {
    const [turnId, service] = intent.split('\u0000')
    if (callIds.length > 1)
      broken.push(
        `turn ${turnId}: ${service} performed ${callIds.length} times (calls ${callIds.join(', ')}) for the one the model asked for`,
      )
  }
  // The handler ships each order by its own key, not one another event's run took.
  for (const [handled, keys] of tools.handled) {
    const [session, eventId, ranIn] = handled.split('\u0000')
    if (session !== sessionId || ranIn !== life) continue
    for (const key of keys) {
      const by = tools.performedBy.get(`shipping\u0000${sessionId}\u0000${key}`)
      if (by !== undefined && by !== handled)
        broken.push(
          `the handler of ${eventId} shipped nothing: its key was the handler of ${by.split('\u0000')[1]}'s`,
        )
    }
  }
  return broken
}

const describeCall = (call: string): string => {
  const [toolName, , callId] = call.split('\u0000')
  return `${toolName} call ${callId}`
}

/**
 * Content per step: what a successful model step recorded (the text its
 * progress events carry, the tool calls they stream) is what one of the
 * session's model calls produced, to the letter: all of it, or all of it up
 * to a tool call (a takeover closes a step on the calls it finds recorded). A progress event a writer
 * lost, or wrote twice, leaves a transcript no model call produced, and a
 * fold of that log agrees with itself.
 */
export function brokenContent(
  sessionId: string,
  events: readonly StoredEvent[],
  spans: readonly ModelSpan[],
): string[] {
  const produced = new Set(
    spans
      .filter((span) => span.sessionId === sessionId)
      .flatMap((span) => span.produced.map((output) => contentKey(output.text, output.toolCalls))),
  )
  const recorded = new Map<
    string,
    { text: string; toolCalls: { toolName: string; input: string }[] }
  >()
  for (const event of events) {
    if (event.type !== 'ai.generation.progress') continue
    const { generationId, chunks } = event.payload as {
      generationId: string
      chunks: { type: string; delta?: string; toolName?: string; input?: unknown }[]
    }
    const content = recorded.get(generationId) ?? { text: '', toolCalls: [] }
    for (const chunk of chunks) {
      if (chunk.type === 'text-delta') content.text += chunk.delta ?? ''
      // A call the model made (its input valid for the tool, or not: a malformed call is content too).
      if (chunk.type === 'tool-input-available' || chunk.type === 'tool-input-error')
        content.toolCalls.push({
          toolName: chunk.toolName ?? '',
          input: typeof chunk.input === 'string' ? chunk.input : JSON.stringify(chunk.input),
        })
    }
    recorded.set(generationId, content)
  }
  const broken: string[] = []
  for (const event of events) {
    if (event.type !== 'ai.generation.completed') continue
    const { generationId, outcome } = event.payload as { generationId: string; outcome: string }
    if (outcome !== 'success') continue
    const content = recorded.get(generationId) ?? { text: '', toolCalls: [] }
    if (!produced.has(contentKey(content.text, content.toolCalls)))
      broken.push(
        `model step ${generationId} recorded ${JSON.stringify(content.text.slice(0, 80))}${content.toolCalls.length ? ` and ${content.toolCalls.map((call) => call.toolName).join(', ')}` : ''}, which no model call produced`,
      )
  }
  return broken
}

/**
 * A content's identity: its text, and its tool calls with their input as
 * parsed JSON, less the oversized fault's `padding` (the tool's schema
 * strips a key it does not know, so the log records the input without it).
 */
function contentKey(
  text: string,
  toolCalls: readonly { toolName: string; input: string }[],
): string {
  return JSON.stringify([
    text,
    toolCalls.map((call) => {
      try {
        const { padding: _, ...input } = JSON.parse(call.input) as Record<string, unknown>
        return [call.toolName, JSON.stringify(input)]
      } catch {
        return [call.toolName, call.input]
      }
    }),
  ])
}
