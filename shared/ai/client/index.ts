// `a2-aws/ai/client`: the framework-neutral browser and Node client of an
// agent's endpoint. Session objects are external stores (for React's
// `useSyncExternalStore`, or any UI) kept live over SSE.

export type { ContractLike } from '../state/session-state.ts'
export {
  type AgentClient,
  type AgentClientOptions,
  createAgentClient,
  DEFAULT_GC_TIME_MS,
} from './agent-client.ts'
export type { AgentLike, MessageOf } from './agent-types.ts'
export type { BackoffOptions } from './backoff.ts'
export {
  AgentChatTransport,
  type AgentChatTransportOptions,
} from './chat-transport.ts'
export { AgentClientError, type AgentClientErrorCode } from './client-error.ts'
export type { ClientSession } from './client-session.ts'
export type { HeadersOption } from './endpoint.ts'
export { messageChunks } from './message-chunks.ts'
export { type ResponseTarget, responseChunkStream } from './response-chunk-stream.ts'
export type { AgentActions, ApprovalRef, PushResult } from './session-actions.ts'
export {
  type AgentIndicator,
  type AgentSnapshot,
  type AgentStatus,
  indicatorOf,
  statusOf,
} from './session-view.ts'
export type { ConnectionStatus } from './sse-subscription.ts'
