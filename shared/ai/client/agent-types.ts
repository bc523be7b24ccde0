import type { UIMessage } from 'ai'
import type { Agent } from '../server/agent.ts'

/**
 * Any agent, as a type. Clients take `typeof assistant` through a type-only
 * import, so no server code reaches the browser bundle.
 */
// biome-ignore lint/suspicious/noExplicitAny: any agent, whatever its tools, events and state
export type AgentLike = Agent<any, any, any, any>

/** The message type of an agent (`agent<..., M>()`, or its contract's), else `UIMessage`. */
// biome-ignore lint/suspicious/noExplicitAny: only the message type is read
export type MessageOf<A> = A extends Agent<any, any, any, infer M> ? M : UIMessage
