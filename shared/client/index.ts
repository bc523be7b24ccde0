// `a2-aws/ai/client`: the framework-neutral client of an agent's endpoint,
// for browsers and Node services. What it is for:
// - `createAgentClient()`: session objects (`ClientSession`) that are
//   external stores (for React's `useSyncExternalStore`, or any UI) kept
//   live over SSE, with the actions (send, approve, stop, steer, ...);
// - `AgentChatTransport`: the same for an AI SDK `useChat()` app;
// - `messageChunks()`: the UI message chunks between two versions of a message;
// - `AgentClientError` and `hasA2Code` (the root entry's, here so browser
//   code need not import the root, which holds the memory store).

export { type A2Code, hasA2Code } from '../log/error-brand.ts'
export { WIRE_PROTOCOL } from '../log/wire-protocol.ts'
export type { ContractLike } from '../model/state/session-state.ts'
export {
  type AgentClient,
  type AgentClientOptions,
  createAgentClient,
  DEFAULT_GC_TIME_MS,
  type SessionToken,
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
export type { ReloadReason, ServerVersions } from './server-skew.ts'
export type { AgentActions, ApprovalRef, PushResult } from './session-actions.ts'
export type {
  AgentIndicator,
  AgentSnapshot,
  AgentStage,
  AgentStatus,
} from './session-view.ts'
export { type ConnectionStatus, DEFAULT_IDLE_CHECK_MS } from './sse-subscription.ts'
