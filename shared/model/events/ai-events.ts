import type { UIMessage, UIMessageChunk } from 'ai'
import type { z } from 'zod'
import type { EventInput, StoredEvent } from '../../log/event.ts'
import { type ControlRequest, controlRequestSchema } from './control.ts'
import {
  controlCommittedSchema,
  controlDecidedSchema,
  generationRequestedSchema,
  messageCompletedSchema,
  messageCreatedSchema,
} from './controller-events.ts'
import {
  approvalRequestedSchema,
  compactionCompletedSchema,
  compactionFailedSchema,
  compactionStartedSchema,
  generationCompletedSchema,
  generationProgressSchema,
  generationStartedSchema,
  generationSupersededSchema,
  handlerDeadLetteredSchema,
  modelMetadataRequestedSchema,
  modelMetadataResolvedSchema,
  sessionClosedSchema,
  sessionCreatedSchema,
  stepCompletedSchema,
  toolCalledSchema,
  toolInterruptedSchema,
  toolResultSchema,
} from './runtime-events.ts'

/** Every `ai.*` event type, mapped to the zod schema of its payload. */
export const AI_EVENTS = {
  'ai.control.requested': controlRequestSchema,
  'ai.message.created': messageCreatedSchema,
  'ai.control.committed': controlCommittedSchema,
  'ai.control.decided': controlDecidedSchema,
  'ai.generation.requested': generationRequestedSchema,
  'ai.generation.started': generationStartedSchema,
  'ai.generation.progress': generationProgressSchema,
  'ai.generation.completed': generationCompletedSchema,
  'ai.generation.superseded': generationSupersededSchema,
  'ai.tool.called': toolCalledSchema,
  'ai.approval.requested': approvalRequestedSchema,
  'ai.tool.result': toolResultSchema,
  'ai.tool.interrupted': toolInterruptedSchema,
  'ai.step.completed': stepCompletedSchema,
  'ai.message.completed': messageCompletedSchema,
  'ai.model.metadata.requested': modelMetadataRequestedSchema,
  'ai.model.metadata.resolved': modelMetadataResolvedSchema,
  'ai.session.created': sessionCreatedSchema,
  'ai.session.closed': sessionClosedSchema,
  'ai.compaction.started': compactionStartedSchema,
  'ai.compaction.completed': compactionCompletedSchema,
  'ai.compaction.failed': compactionFailedSchema,
  'ai.handler.dead-lettered': handlerDeadLetteredSchema,
} as const

export type AIEventType = keyof typeof AI_EVENTS

/** The payload of an `ai.*` event type; messages typed as `M`. */
export type AIEventPayload<
  T extends AIEventType,
  M extends UIMessage = UIMessage,
> = T extends 'ai.control.requested'
  ? ControlRequest<M>
  : T extends 'ai.generation.progress'
    ? { generationId: string; chunks: UIMessageChunk[] }
    : z.output<(typeof AI_EVENTS)[T]>

/** A stored `ai.*` event, discriminated by `type`. */
export type AIEvent<M extends UIMessage = UIMessage> = {
  [T in AIEventType]: StoredEvent<T, AIEventPayload<T, M>>
}[AIEventType]

/** An `ai.*` event as written, before the log stores it. */
export type AIEventInput<M extends UIMessage = UIMessage> = {
  [T in AIEventType]: EventInput<T, AIEventPayload<T, M>> & { id: string }
}[AIEventType]

/** An `ai.control.requested` event as stored: a command. */
export type ControlCommand<M extends UIMessage = UIMessage> = StoredEvent<
  'ai.control.requested',
  ControlRequest<M>
>

export function isAIEventType(type: string): type is AIEventType {
  return Object.hasOwn(AI_EVENTS, type)
}
