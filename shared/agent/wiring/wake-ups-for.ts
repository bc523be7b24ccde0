import type { StoredEvent } from '../../log/event.ts'
import { mayLeaveADecision } from '../../model/controller/controller-rounds.ts'
import { SERIAL_TOOL_KEY } from '../../model/ids/claim-keys.ts'
import { toolCallKey } from '../../model/ids/ids.ts'
import type { Lane } from '../../runtime/lane-table.ts'
import type { WakeUp } from '../../runtime/wake-up.ts'

/**
 * What can make a tool runnable: a new call (recorded as soon as its input
 * is complete, while the step may still stream), an approval, a resume. A
 * new call wakes its own keyed run at once; an approval or a resume may
 * concern any call, so it wakes the unkeyed run, which finds the runnable
 * ones and wakes theirs.
 */
const TOOL_CHANGES = new Set(['approval.respond', 'resume'])
const makesToolsRunnable = (event: StoredEvent): boolean =>
  event.type === 'ai.control.committed' &&
  ((event.payload as { changes?: { op?: string }[] } | null)?.changes ?? []).some((change) =>
    TOOL_CHANGES.has(change.op ?? ''),
  )
/** The keyed tools run of a new call: its `toolCallKey`, or the one serial run. */
const calledKey = (event: StoredEvent, serialTools: boolean): string | undefined => {
  if (serialTools) return SERIAL_TOOL_KEY
  const call = event.payload as { generationId?: unknown; toolCallId?: unknown } | null
  return typeof call?.generationId === 'string' && typeof call.toolCallId === 'string'
    ? toolCallKey({ generationId: call.generationId, toolCallId: call.toolCallId })
    : undefined
}
const GENERATION_TRIGGERS = new Set(['ai.generation.requested', 'ai.generation.superseded'])
const metadataKey = (event: StoredEvent): string | undefined => {
  const modelId = (event.payload as { modelId?: unknown } | null)?.modelId
  return typeof modelId === 'string' ? modelId : undefined
}

const commandKey = (event: { sessionId: string; id: string }): string =>
  `${event.sessionId}\u0000${event.id}`

/**
 * The commands whose decision is in the same batch: a command the POST
 * decided where it wrote it (`appendDecidedPush`, only when the
 * controller's rounds settled), or one admission decided in a later append
 * that the stream router reads in the same batch. Either way nothing about
 * it is left to decide, so it wakes no admission. A batch the stream splits
 * between the two wakes admission for the command, which finds it decided.
 */
function decidedInBatch(events: readonly StoredEvent[]): Set<string> {
  const decided = new Set<string>()
  for (const event of events) {
    if (event.type !== 'ai.control.decided') continue
    const commandId = (event.payload as { commandId?: unknown } | null)?.commandId
    if (typeof commandId === 'string')
      decided.add(commandKey({ sessionId: event.sessionId, id: commandId }))
  }
  return decided
}

/** What routing depends on in an agent's configuration. */
export interface WakeUpRouting {
  /** Event types the agent's `handlers` handle. */
  handledTypes: ReadonlySet<string>
  /** `toolLane: 'tools'`: one serial tools run per session instead of one per call. */
  serialTools?: boolean
}

/**
 * The lanes a batch of new events concerns: one wake-up per lane and
 * session. The embedded runtime, the fast path and the AWS stream router
 * all route with this, so they wake the same lanes.
 */
export function wakeUpsFor(events: readonly StoredEvent[], routing: WakeUpRouting): WakeUp[] {
  const { handledTypes, serialTools = false } = routing
  const wakeUps = new Map<string, WakeUp>()
  const decided = decidedInBatch(events)
  for (const event of events) {
    // Each wake-up at the last event that made it: its deduplication ID.
    const at = { life: event.life, index: event.index }
    const add = (sessionId: string, lane: Lane, key?: string): void => {
      wakeUps.set(
        `${sessionId}\u0000${lane}\u0000${key ?? ''}`,
        key === undefined ? { sessionId, lane, at } : { sessionId, lane, key, at },
      )
    }
    if (mayLeaveADecision(event) && !decided.has(commandKey(event)))
      add(event.sessionId, 'admission')
    if (GENERATION_TRIGGERS.has(event.type)) add(event.sessionId, 'generation')
    if (event.type === 'ai.tool.called')
      add(event.sessionId, 'tools', calledKey(event, serialTools))
    if (makesToolsRunnable(event)) add(event.sessionId, 'tools')
    if (handledTypes.has(event.type)) add(event.sessionId, 'handlers')
    // One lookup per model: a model whose lookup keeps failing is
    // dead-lettered on its own and holds no other model's lookup back.
    if (event.type === 'ai.model.metadata.requested')
      add(event.sessionId, 'metadata', metadataKey(event))
  }
  return [...wakeUps.values()]
}
