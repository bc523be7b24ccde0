import type { StoredEvent } from '../log/event.ts'
import { foldEvents } from '../log/reducer.ts'
import type { AIState } from '../model/state/ai-state.ts'
import { expectsNews } from '../model/state/expects-news.ts'
import { notify, type SessionCore, settle } from './session-core.ts'
import { openSseSubscription, type SseSubscription } from './sse-subscription.ts'

/** Listeners leaving and a new one arriving in the same tick (React's StrictMode) keep the stream. */
const CLOSE_STREAM_AFTER_MS = 0

/**
 * Opens the stream while anyone wants it (a listener, a push waiting for
 * its confirmation), closes it a tick after nobody does, and tells the
 * client when the session became idle or stopped being so.
 */
export function updateHolds(core: SessionCore): void {
  const wantsStream = core.listeners.size > 0 || core.waiters.size > 0
  if (wantsStream) {
    clearTimeout(core.closeTimer)
    core.closeTimer = undefined
    core.stream ??= openStream(core)
  } else if (core.stream && core.closeTimer === undefined) {
    core.closeTimer = setTimeout(() => {
      core.closeTimer = undefined
      core.stream?.close()
      core.stream = undefined
    }, CLOSE_STREAM_AFTER_MS)
  }
  const nowIdle = !wantsStream && core.inFlight === 0
  if (nowIdle !== core.idle) {
    core.idle = nowIdle
    core.onIdleChange(core.idle)
  }
}

/** The session's SSE subscription, folding what it delivers into `confirmed`. */
function openStream(core: SessionCore): SseSubscription {
  const { config } = core
  return openSseSubscription({
    endpoint: config.endpoint,
    sessionId: core.id,
    lastIndex: () => core.confirmed.index,
    lastId: () => core.confirmedId,
    lastLife: () => core.confirmed.life,
    onEvents: (events) => apply(core, events),
    onRewind: () => rewind(core),
    onHead: (index) => {
      if (index === core.streamHead) return
      core.streamHead = index
      notify(core)
    },
    // After a quiet end: open the next stream at once while anything is on its way.
    expectsNews: () =>
      core.inFlight > 0 ||
      core.waiters.size > 0 ||
      core.pending.size > 0 ||
      expectsNews(core.confirmed.state.ai as AIState),
    onStatus: (status, error) => {
      if (status === core.connection && error === core.streamError) return
      // A new connection announces its own head.
      if (status !== 'open') core.streamHead = undefined
      core.connection = status
      core.streamError = error
      notify(core)
    },
    ...(config.reconnect ? { backoff: config.reconnect } : {}),
    ...(config.idleCheckMs === undefined ? {} : { idleCheckMs: config.idleCheckMs }),
  })
}

function apply(core: SessionCore, events: StoredEvent[]): void {
  for (const event of events) core.pending.placed(event.id, event.index)
  core.confirmed = foldEvents(core.config.reducer, core.confirmed, events)
  core.confirmedId = events.at(-1)?.id ?? core.confirmedId
  settle(core)
  updateHolds(core)
  notify(core)
}

/**
 * The server holds another log than the one folded here (a memory store
 * restarted, a session recreated): forget it, and the stream folds the new
 * one from the start. Commands that log had placed went with it.
 */
function rewind(core: SessionCore): void {
  core.confirmed = { state: core.config.reducer.initialState, index: 0 }
  core.confirmedId = undefined
  core.pending.forgetPlaced()
  settle(core)
  notify(core)
}

/** Closes the stream now and drops every listener and waiter. */
export function closeSession(core: SessionCore): void {
  core.listeners.clear()
  core.unlistenSkew?.()
  core.unlistenSkew = undefined
  core.waiters.clear()
  clearTimeout(core.closeTimer)
  core.closeTimer = undefined
  core.stream?.close()
  core.stream = undefined
}
