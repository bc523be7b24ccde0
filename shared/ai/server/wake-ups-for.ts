import type { StoredEvent } from '../../log/event.ts'
import type { Lane } from '../../runtime/lanes.ts'
import type { WakeUp } from '../../runtime/wake-up.ts'
import { SERIAL_TOOL_KEY } from '../controller/claim-keys.ts'
import { toolCallKey } from '../ids.ts'

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
/**
 * Events that cannot change a decision of the controller, so they do not
 * wake admission (test/shared/ai/server/admission-wakes.test.ts proves it
 * over random sessions: every batch that leaves the controller something to
 * do wakes it):
 * - what only the controller writes (its receipts and commits, the messages
 *   it opens and closes, the requests it makes): its lane runs rounds until
 *   nothing is due, so its own append never needs another look;
 * - a step's opening, its tool calls (recorded mid-stream, before the step
 *   ends) and its approval requests: the controller waits on the step's
 *   end, the calls' results and the answer, which wake it (a step's end or
 *   a result that carries its decision does not: `decidedInBatch`);
 * - streamed chunks, a tool's durable steps, dead letters.
 */
const NOT_FOR_ADMISSION = new Set([
  'ai.control.decided',
  'ai.control.committed',
  'ai.message.created',
  'ai.message.completed',
  'ai.generation.requested',
  'ai.generation.started',
  'ai.tool.called',
  'ai.approval.requested',
  'ai.generation.progress',
  'ai.handler.dead-lettered',
  'ai.step.completed',
])

/**
 * A step's end or a tool's result appended with the controller's decision
 * at its index, which left the controller nothing to do (`decided: true`,
 * controller/decision-after.ts): waking admission would find nothing due.
 */
const decidedInBatch = (event: StoredEvent): boolean =>
  (event.type === 'ai.generation.completed' || event.type === 'ai.tool.result') &&
  (event.payload as { decided?: unknown } | null)?.decided === true

const metadataKey = (event: StoredEvent): string | undefined => {
  const modelId = (event.payload as { modelId?: unknown } | null)?.modelId
  return typeof modelId === 'string' ? modelId : undefined
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
  for (const event of events) {
    // Each wake-up at the last event that made it: its deduplication ID.
    const at = { life: event.life, index: event.index }
    const add = (sessionId: string, lane: Lane, key?: string): void => {
      wakeUps.set(
        `${sessionId}\u0000${lane}\u0000${key ?? ''}`,
        key === undefined ? { sessionId, lane, at } : { sessionId, lane, key, at },
      )
    }
    if (!NOT_FOR_ADMISSION.has(event.type) && !decidedInBatch(event))
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
