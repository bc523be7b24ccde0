// `a2-aws/ai/server`: the agent runtime and its server-side parts (Node).

export { HttpError, type HttpErrorCode } from '../../http/http-error.ts'
export {
  type Authorize,
  type FetchOptions,
  type LogEndpointOptions,
  logEndpoint,
  type Operation,
} from '../../http/log-endpoint.ts'
export {
  MAX_APPEND_BYTES,
  MAX_EVENT_BYTES,
  MAX_EVENTS_PER_APPEND,
  MAX_PAYLOAD_DEPTH,
} from '../../log/limits.ts'
export { runWithHandlerContext } from '../../runtime/handler-context-storage.ts'
export { inProcessDispatcher, type RetryPolicy } from '../../runtime/in-process-dispatcher.ts'
export { inProcessScheduler, TimerConflictError } from '../../runtime/in-process-scheduler.ts'
export { LANES, type Lane } from '../../runtime/lanes.ts'
export type { Scheduler, Timer } from '../../runtime/scheduler.ts'
export type { Dispatcher, WakeUp } from '../../runtime/wake-up.ts'
export { createEventLogTable } from '../../stores/dynamodb/create-table.ts'
export {
  type DynamoDBEventStoreOptions,
  dynamoDBEventStore,
} from '../../stores/dynamodb/dynamodb-event-store.ts'
export {
  type MemoryEventStoreOptions,
  memoryEventStore,
} from '../../stores/memory/memory-event-store.ts'
export { COMPRESS_ABOVE_BYTES } from '../../stores/payload-codec.ts'
export { type Agent, type AgentRuntime, agent } from './agent.ts'
export type {
  AgentOptions,
  GenerateContext,
  GenerationSettings,
  HarnessOptions,
  MessageMetadataContext,
  ModelChoice,
  ResolverContext,
  ToolApprovalPolicy,
} from './agent-options.ts'
export type { AgentSession } from './session-api.ts'
export { wakeUpsFor } from './wake-ups-for.ts'
