import type { ControllerOptions } from '../../model/controller/controller-options.ts'
import { controllerRound } from '../../model/controller/controller-round.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import { lookupGaveUp } from '../../model/state/model-lookups.ts'
import type { Lane } from '../../runtime/lane-table.ts'

/**
 * The key of the admission wake-up a reader sends (a GET: a page load, a
 * reconnect). The admission lane runs as usual, then wakes the lanes that
 * may hold work a crashed process left behind.
 */
export const RECOVER_KEY = 'recover'

/**
 * The lanes that may hold unfinished work: generation and tools while a turn
 * is active, metadata while a lookup is pending and not given up, handlers
 * whenever the agent has them (their cursor is not in the state). An idle
 * session needs none, so a reader wakes one lane instead of all of them.
 */
export function lanesToRecover(state: AIState, { handlers }: { handlers: boolean }): Lane[] {
  const lanes: Lane[] = []
  if (state.active !== null) lanes.push('generation', 'tools')
  const lookingUp = Object.entries(state.modelMetadata).some(
    ([modelId, metadata]) => metadata.status === 'pending' && !lookupGaveUp(state, modelId),
  )
  if (lookingUp) lanes.push('metadata')
  if (handlers) lanes.push('handlers')
  return lanes
}

/**
 * Whether a reader should wake the session to recover it: only when it may
 * hold work a crashed process left (a decision the controller has not made,
 * or a lane in `lanesToRecover`). An idle, settled session needs nothing, so
 * a reconnecting tab (every 10 to 20 s while it is open) costs no wake-up,
 * no SQS message and no invocation.
 */
export function mayHoldStuckWork(
  state: AIState,
  options: { handlers: boolean; controller: ControllerOptions },
): boolean {
  return (
    controllerRound(state, options.controller).events.length > 0 ||
    lanesToRecover(state, options).length > 0
  )
}
