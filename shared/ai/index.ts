// `a2-aws/ai`: the conversation model, isomorphic. Event schemas, the
// `inputs` builders, the AI reducer, the controller's pure decisions and the
// optimistic overlay. Nothing here touches AWS, React or Node I/O.

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
export { type Admission, admissionEvents, nextAdmission } from './controller/admission.ts'
export { type AdmissionRound, admissionRound } from './controller/admission-round.ts'
export {
  type AdvanceOptions,
  advance,
  awaitsResult,
  DEFAULT_MAX_STEPS,
} from './controller/advance.ts'
export { type Decision, decide } from './controller/decide.ts'
export {
  type DueGeneration,
  dueGeneration,
  isCurrentGeneration,
  runnableTools,
  workToAbort,
} from './controller/due-work.ts'
export { type AwaitedWork, turnAwaits } from './controller/turn-awaits.ts'
export { aiContract } from './events/ai-contract.ts'
export {
  AI_EVENTS,
  type AIEvent,
  type AIEventInput,
  type AIEventPayload,
  type AIEventType,
  type ControlCommand,
  isAIEventType,
  SERVER_AUTHORED_AI_EVENTS,
} from './events/ai-events.ts'
export {
  browserMayPush,
  type ControlAction,
  type ControlRequest,
  controlRequestSchema,
  NEW_INPUT_ACTIONS,
} from './events/control.ts'
export {
  type ControlChange,
  REJECTION_REASONS,
  type RejectionReason,
} from './events/controller-events.ts'
export { AI_ID_PREFIX, derivedId, isAIReservedId, responseIdFor, turnIdFor } from './ids.ts'
export type { CommandOptions, ControlCommandInput } from './inputs/command.ts'
export { inputs } from './inputs/inputs.ts'
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
  type ToolRecord,
  type ToolStatus,
  type TranscriptMessage,
  type TurnPhase,
} from './state/ai-state.ts'
export { AI_STATE_REDUCER, aiStateReducer } from './state/ai-state-reducer.ts'
export { applyUIMessageChunks, emptyCursor, type StreamCursor } from './state/apply-chunks.ts'
export {
  COMPACTION_PART_TYPE,
  type CompactionData,
  type CompactionPart,
  type CompactionStatus,
  isCompactionPart,
} from './state/compaction-part.ts'
export { deriveUIMessages } from './state/derive-ui-messages.ts'
export { type ModelSettings, type ReasoningLevel, reasoningLevels } from './state/model-settings.ts'
export { reduceAIState } from './state/reduce-ai-state.ts'
