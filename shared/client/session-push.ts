import type { EventInput, StoredEvent } from '../log/event.ts'
import { newInputIdOf } from '../model/events/input-identity.ts'
import { backoff } from '../timing/backoff.ts'
import { clientBackoff } from './backoff.ts'
import { postEvents } from './endpoint.ts'
import type { PushResult } from './session-actions.ts'
import { notify, type SessionCore, settle } from './session-core.ts'
import { updateHolds } from './session-stream.ts'

/**
 * Posts events, pending (folded over the confirmed state) until the log
 * holds them; the answer's `confirmed` waits for the stream to deliver them.
 */
export function pushEvents(core: SessionCore, events: EventInput[]): PushResult {
  const { config } = core
  // A new input's event ID is its message ID, as the server requires.
  const withIds = events.map((event) =>
    event.id === undefined ? { ...event, id: newInputIdOf(event) ?? config.generateId() } : event,
  )
  const stored = withIds.length === 0 ? Promise.resolve([]) : post(core, withIds)
  let confirmation: Promise<StoredEvent[]> | undefined
  // Lazy: a Node service that only enqueues never opens a stream it does not read.
  return Object.defineProperty(stored, 'confirmed', {
    get: () =>
      (confirmation ??= stored.then(async (result) => {
        await waitFor(core, Math.max(0, ...result.map((event) => event.index)))
        return result
      })),
  }) as PushResult
}

function post(core: SessionCore, withIds: EventInput[]): Promise<StoredEvent[]> {
  const { config, pending } = core
  pending.add(withIds)
  core.inFlight++
  updateHolds(core)
  // A resting stream opens now: what this push starts streams back at once.
  core.stream?.wake()
  notify(core)
  const retryDelay = (attempt: number) => backoff(attempt, clientBackoff(config.reconnect ?? {}))
  const stored = postEvents(config.endpoint, core.id, withIds, { delay: retryDelay }).then(
    (result) => {
      for (const event of result) pending.placed(event.id, event.index)
      settle(core)
      return result
    },
    (error: unknown) => {
      pending.remove(withIds)
      throw error
    },
  )
  void stored
    .catch(() => undefined)
    .finally(() => {
      core.inFlight--
      updateHolds(core)
      notify(core)
    })
  return stored
}

/** Resolves once the confirmed log reaches `index` (holding the stream open until then). */
function waitFor(core: SessionCore, index: number): Promise<void> {
  if (index <= core.confirmed.index) return Promise.resolve()
  return new Promise((resolve) => {
    core.waiters.add({ index, resolve })
    updateHolds(core)
  })
}
