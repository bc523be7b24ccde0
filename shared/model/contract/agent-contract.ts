import type { UIMessage } from 'ai'
import {
  type Contract,
  type ContractEvent,
  type ContractEvents,
  contract,
} from '../../log/contract.ts'
import { AI_STATE_KEYS, type AIState } from '../state/ai-state.ts'

/** State whose keys would shadow AIState's is refused at compile time. */
export type NoAIStateKeys<State> = State & { [Key in keyof AIState & keyof State]: never }

export interface AgentContractDefinition<Events extends ContractEvents, State> {
  name: string
  events?: Events
  /**
   * Folds your state. It sees every event of the session (the AI protocol's
   * too), never the transcript; return `state` for types you do not know.
   * Its name is the snapshot identity: rename it when `fold` changes.
   */
  reducer?: {
    name: string
    initialState: NoAIStateKeys<State>
    fold: (state: State, event: ContractEvent<Events>) => State
  }
}

/**
 * A shared, isomorphic description of an agent's own events and state. `M`
 * narrows the agent's `UIMessage` type (message metadata, data parts).
 */
export interface AgentContract<
  M extends UIMessage = UIMessage,
  Events extends ContractEvents = ContractEvents,
  State = never,
> extends Contract<Events, State> {
  readonly kind: 'a2.agent-contract'
  /** Type carrier only: the contract's message type. */
  readonly message?: M
}

/** The session state a contract's agent has: AIState merged with the app's. */
export type AgentState<M extends UIMessage, State> = [State] extends [never]
  ? AIState<M>
  : AIState<M> & State

/**
 * Declares an agent's application events and state, shared by the server
 * (`agent({ contract })`) and the browser (`useAgent({ contract })`).
 *
 * @example
 * export const supportDesk = agentContract({
 *   name: 'support-desk',
 *   events: { 'plan.changed': z.object({ plan: z.enum(['free', 'pro']) }) },
 *   reducer: {
 *     name: 'support-desk.v1',
 *     initialState: { plan: 'free' as 'free' | 'pro' },
 *     fold: (state, event) => (event.type === 'plan.changed' ? { plan: event.payload.plan } : state),
 *   },
 * })
 */
export function agentContract<
  M extends UIMessage = UIMessage,
  // biome-ignore lint/complexity/noBannedTypes: an agent contract may declare no events
  Events extends ContractEvents = {},
  State = never,
>(definition: AgentContractDefinition<Events, State>): AgentContract<M, Events, State> {
  const events = (definition.events ?? {}) as Events
  for (const type of Object.keys(events)) {
    if (type.startsWith('ai.') || type.startsWith('a2.')) {
      throw new TypeError(
        `agentContract("${definition.name}") declares "${type}": ai.* and a2.* event types belong to A2`,
      )
    }
  }
  const initial = definition.reducer?.initialState as Record<string, unknown> | undefined
  const shadowed = initial ? Object.keys(initial).filter((key) => AI_STATE_KEYS.has(key)) : []
  if (shadowed.length > 0) {
    throw new TypeError(
      `agentContract("${definition.name}") state shadows AIState: ${shadowed.join(', ')}`,
    )
  }
  const core = contract<Events, State>({
    name: definition.name,
    events,
    ...(definition.reducer
      ? {
          reducer: {
            name: definition.reducer.name,
            initialState: definition.reducer.initialState as State,
            fold: definition.reducer.fold,
          },
        }
      : {}),
  })
  return { ...core, kind: 'a2.agent-contract' }
}
