import { type EraseReceipt, nothingErased } from '../../log/event-store.ts'
import { keyOf, type MemoryState } from './memory-state.ts'

/** `EventStore.erase` on the memory store: the session's every item, counted as DynamoDB's would be. */
export async function memoryErase(
  state: MemoryState,
  sessionId: string,
  options: { life?: string } = {},
): Promise<EraseReceipt> {
  const log = state.logs.get(sessionId) ?? []
  if (options.life !== undefined && log.at(-1)?.life !== options.life) {
    return nothingErased(sessionId)
  }
  state.logs.delete(sessionId)
  state.lives.delete(sessionId)
  state.expiries.delete(sessionId)
  let idGuards = 0
  for (const event of log) {
    if (state.guards.get(event.id)?.sessionId !== sessionId) continue
    state.guards.delete(event.id)
    idGuards++
  }
  // Every other item kind is keyed by the session, then a NUL.
  const removeKeyed = (map: Map<string, unknown>): number => {
    let removed = 0
    for (const key of map.keys()) {
      if (!key.startsWith(keyOf(sessionId, ''))) continue
      map.delete(key)
      removed++
    }
    return removed
  }
  return {
    sessionId,
    events: log.length,
    heads: log.length > 0 ? 1 : 0,
    snapshots: removeKeyed(state.snapshots),
    cursors: removeKeyed(state.cursors),
    claims: removeKeyed(state.claims),
    idGuards,
  }
}
