import type { UIMessage } from 'ai'
import type { Agent } from '../agent/wiring/agent.ts'

/**
 * Any agent, as a type. Clients take `typeof assistant` through a type-only
 * import, so no server code reaches the browser bundle.
 */
// biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its tools, events and state
export type AgentLike = Agent<any, any, any, any>

// biome-ignore lint/suspicious/noExplicitAny: only the message type is read
type AnyAgentOf<M extends UIMessage> = Agent<any, any, any, M>

/** The message type of an agent (`agent<..., M>()`, or its contract's), else `UIMessage`. */
export type MessageOf<A> =
  A extends AnyAgentOf<infer M>
    ? // `AgentLike` itself (the default) says nothing: plain UIMessage, not `any`.
      0 extends 1 & M
      ? UIMessage
      : M
    : UIMessage

// biome-ignore lint/suspicious/noExplicitAny: only the app state is read
type AnyAgentWithState<S> = Agent<any, any, S, any>

/**
 * Whether an agent's contract folds its own state. The contract-free client
 * (`createAgentClient<typeof agent>()`, `useAgent<typeof agent>({ api })`)
 * folds only the built-in reducer, `AI_STATE_REDUCER`, so it accepts
 * `agent({ name })` or an `agentContract()` without a reducer.
 * @internal Exported for its type test (knip --production).
 */
export type HasAppReducer<A> =
  A extends AnyAgentWithState<infer S>
    ? unknown extends S
      ? false
      : [S] extends [never]
        ? false
        : true
    : false

/**
 * Intersected with a contract-free client's options: for an agent whose
 * contract has a reducer it demands `contract`, so leaving it out is a type
 * error that says why.
 */
export type ContractFreeOnly<A> =
  HasAppReducer<A> extends true
    ? { contract: 'This agent folds its own state: pass its agentContract() as `contract`' }
    : unknown
