import { optimisticAIState } from '../model/optimistic/optimistic-state.ts'
import { mergeState } from '../model/state/session-state.ts'
import type { SessionCore } from './session-core.ts'
import { type AgentSnapshot, indicatorOf, stageOf, statusOf } from './session-view.ts'

/** The current picture: the pending commands folded over the confirmed state; the same object until something changes. */
export function sessionSnapshot(core: SessionCore): AgentSnapshot {
  const skew = core.config.skew.current()
  // The server's picture is the client's: it may have changed without this session.
  const { snapshot } = core
  if (snapshot && snapshot.reload === skew.reload && snapshot.server === skew.server) {
    return snapshot
  }
  const { confirmed, connection, streamHead } = core
  const commands = core.pending.list()
  const view = optimisticAIState(confirmed.state.ai, commands)
  const { requests } = confirmed.state.ai
  const unconfirmed = commands
    .filter((command) => !Object.hasOwn(requests, command.id))
    .map((command) => command.payload)
  const state = mergeState(view, confirmed.state.app)
  core.snapshot = {
    state,
    confirmed: {
      state: mergeState(confirmed.state.ai, confirmed.state.app),
      index: confirmed.index,
      // The life of what it applied, as the server's state() names it.
      ...(confirmed.life ? { life: confirmed.life } : {}),
    },
    messages: view.messages,
    status: statusOf(view),
    indicator: indicatorOf(view),
    stage: stageOf(view, { confirmed: confirmed.state.ai, unconfirmed }),
    connection,
    caughtUp: connection === 'open' && streamHead !== undefined && confirmed.index >= streamHead,
    error: core.streamError,
    reload: skew.reload,
    server: skew.server,
  }
  return core.snapshot
}
