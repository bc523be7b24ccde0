// `a2-aws/ai`: the conversation model, isomorphic (no AWS, React or Node
// I/O; browsers and servers share it). What it is for:
// - `inputs`: the builders of every command (message, approval, stop, ...);
// - `agentContract()`: an app's events and state beside the conversation,
//   and `versionedEvent()` for an event whose schema has changed;
// - `handlerContext()`: the durable context of the running tool or handler;
// - `AIState` and its fold: `initialAIState`, `reduceAIState`,
//   `AI_STATE_REDUCER`, `deriveUIMessages` over a raw history,
//   `optimisticAIState` with pending commands, `turnAwaits` (what an active
//   turn waits on);
// - message helpers: `isCompactionPart`, `reasoningLevels`, `idempotentId`;
// - the inspector's core: `timeline`, `stateAt`, `statesByIndex`, `diffAt`,
//   `diagnose` (why a session is not moving) and `claimKeysToRead`;
// - the event and state types.

export {
  type EventDefinition,
  type Upcaster,
  type Upcasters,
  type VersionedEvent,
  versionedEvent,
} from './log/versioned-event.ts'
export {
  type AgentContract,
  type AgentContractDefinition,
  type AgentState,
  agentContract,
  type NoAIStateKeys,
} from './model/contract/agent-contract.ts'
export { type AwaitedWork, turnAwaits } from './model/controller/turn-awaits.ts'
export type {
  AIEvent,
  AIEventInput,
  AIEventPayload,
  AIEventType,
  ControlCommand,
} from './model/events/ai-events.ts'
export type { ControlAction, ControlRequest } from './model/events/control.ts'
export type { ControlChange, RejectionReason } from './model/events/controller-events.ts'
export { idempotentId } from './model/ids/idempotent-id.ts'
export type { CommandOptions, ControlCommandInput } from './model/inputs/command.ts'
export { inputs } from './model/inputs/inputs.ts'
export {
  type ClaimView,
  claimKeysToRead,
  type DiagnoseOptions,
  type Diagnosis,
  diagnose,
  diffAt,
  diffStates,
  type EventAuthor,
  headOf,
  IndexOutOfRangeError,
  type SessionStatus,
  type StateChange,
  stateAt,
  statesByIndex,
  type TimelineLine,
  timeline,
  type Wait,
} from './model/inspect/index.ts'
export { optimisticAIState, type PendingCommand } from './model/optimistic/optimistic-state.ts'
export {
  type ActiveGeneration,
  type ActiveTurn,
  type AIState,
  type CommandReceipt,
  type CompactionState,
  type InboxItem,
  initialAIState,
  type ModelMetadata,
  type PendingApproval,
  type PendingInput,
  type RequestedGeneration,
  type ToolRecord,
  type ToolStatus,
  type TurnPhase,
} from './model/state/ai-state.ts'
export { AI_STATE_REDUCER } from './model/state/ai-state-reducer.ts'
export {
  type CompactionData,
  type CompactionPart,
  type CompactionStatus,
  isCompactionPart,
} from './model/state/compaction-part.ts'
export { deriveUIMessages } from './model/state/derive-ui-messages.ts'
export type { TranscriptMessage } from './model/state/message-types.ts'
export {
  type ModelSettings,
  type ReasoningLevel,
  reasoningLevels,
} from './model/state/model-settings.ts'
export { reduceAIState } from './model/state/reduce-ai-state.ts'
export { stoppedUnanswered } from './model/state/stopped-turns.ts'
export {
  type HandlerContext,
  type HandlerSession,
  handlerContext,
  type TimerWhen,
} from './runtime/handler-context.ts'
