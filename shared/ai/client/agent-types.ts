import type { UIMessage } from 'ai'
import type { Agent } from '../server/agent.ts'

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
