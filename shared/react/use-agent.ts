import type { UIMessage } from 'ai'
import { useLayoutEffect, useMemo, useRef, useSyncExternalStore } from 'react'
import type { AgentClient } from '../client/agent-client.ts'
import type { AgentLike, ContractFreeOnly, MessageOf } from '../client/agent-types.ts'
import type { AgentActions } from '../client/session-actions.ts'
import type { AgentSnapshot } from '../client/session-view.ts'
import type { StateSnapshot } from '../log/reducer.ts'
import type { AgentState } from '../model/contract/agent-contract.ts'
import type { AIState } from '../model/state/ai-state.ts'
import type { ContractLike } from '../model/state/session-state.ts'
import { defaultClient } from './default-client.ts'

/** What `useAgent()` returns: the session's picture plus the actions. */
export type UseAgentResult<M extends UIMessage = UIMessage, State = AIState<M>> = AgentSnapshot<
  M,
  State
> &
  AgentActions<M>

interface SessionOptions<State> {
  /** The session ID. */
  id: string
  /**
   * The session's capability token (what `POST {}` answered), sent as
   * `Authorization: Bearer` with the `api` form; a `client` carries its own.
   */
  token?: string
  /** A server snapshot (`session(id).state()`); adopted unless the client already has newer state. */
  initial?: StateSnapshot<State>
}

/**
 * Keeps a session live in a component: `state`, `messages`, `status`,
 * `indicator`, `stage` and the actions, on `useSyncExternalStore` over the
 * framework-neutral client. Components naming the same route and session
 * share one session object and stream. `stop()`, `steer()` and
 * `queue.sendNow()` address what this component rendered, not whatever
 * arrived before the click was handled.
 *
 * @example
 * const { messages, status, indicator, sendMessage } =
 *   useAgent<typeof assistant>({ api: '/api/agent', id: sessionId, initial })
 */
export function useAgent<M extends UIMessage, State>(
  options: SessionOptions<State> & { client: AgentClient<M, State> },
): UseAgentResult<M, State>
export function useAgent<A extends AgentLike = AgentLike>(
  options: SessionOptions<AIState<MessageOf<A>>> &
    (
      | ({ api: string; client?: undefined; contract?: undefined } & ContractFreeOnly<A>)
      | { client: AgentClient<MessageOf<A>, AIState<MessageOf<A>>>; api?: undefined }
    ),
): UseAgentResult<MessageOf<A>>
export function useAgent<App, M extends UIMessage = UIMessage>(
  options: SessionOptions<AgentState<M, App>> & {
    api: string
    /** Your `agentContract()`, imported for real: the browser folds its reducer too. */
    contract: ContractLike<App> & { message?: M }
  },
): UseAgentResult<M, AgentState<M, App>>
export function useAgent(
  options: SessionOptions<AIState> & {
    api?: string
    client?: AgentClient
    contract?: ContractLike<unknown>
  },
): UseAgentResult {
  const client =
    options.client ?? defaultClient(options.api as string, options.contract, options.token)
  const session = client.session(options.id)
  if (options.initial) session.hydrate(options.initial)
  const snapshot = useSyncExternalStore(session.subscribe, session.getSnapshot, session.getSnapshot)
  // The snapshot on screen: Stop sends its frontier, steering its turn.
  const rendered = useRef(snapshot)
  useLayoutEffect(() => {
    rendered.current = snapshot
  })
  const actions = useMemo(() => session.actions(() => rendered.current), [session])
  return useMemo(() => ({ ...snapshot, ...actions }), [snapshot, actions])
}
