// `a2-aws/ai`: the conversation model, isomorphic (no AWS, React or Node
// I/O; browsers and servers share it). What it is for:
// - `inputs`: the builders of every command (message, approval, stop, ...);
// - `agentContract()`: an app's events and state beside the conversation;
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
  type HandlerContext,
  type HandlerSession,
  handlerContext,
  type TimerWhen,
} from '../runtime/handler-context.ts'
export {
  type AgentContract,
  type AgentContractDefinition,
  type AgentState,
  agentContract,
  type NoAIStateKeys,
} from './contract/agent-contract.ts'
export { idempotentId } from './contract/idempotent-id.ts'
export { type AwaitedWork, turnAwaits } from './controller/turn-awaits.ts'
export type {
  AIEvent,
  AIEventInput,
  AIEventPayload,
  AIEventType,
  ControlCommand,
} from './events/ai-events.ts'
export type { ControlAction, ControlRequest } from './events/control.ts'
export type { ControlChange, RejectionReason } from './events/controller-events.ts'
export type { CommandOptions, ControlCommandInput } from './inputs/command.ts'
export { inputs } from './inputs/inputs.ts'
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
} from './inspect/index.ts'
export { optimisticAIState, type PendingCommand } from './optimistic/optimistic-state.ts'
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
} from './state/ai-state.ts'
export { AI_STATE_REDUCER } from './state/ai-state-reducer.ts'
export {
  type CompactionData,
  type CompactionPart,
  type CompactionStatus,
  isCompactionPart,
} from './state/compaction-part.ts'
export { deriveUIMessages } from './state/derive-ui-messages.ts'
export type { TranscriptMessage } from './state/message-types.ts'
export { type ModelSettings, type ReasoningLevel, reasoningLevels } from './state/model-settings.ts'
export { reduceAIState } from './state/reduce-ai-state.ts'
export { stoppedUnanswered } from './state/stopped-turns.ts'
