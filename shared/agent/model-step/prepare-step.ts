import type { UIMessage } from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import { messageOf } from '../../log/message-of.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import type { StepToServe } from '../../model/controller/generation-attempt.ts'
import type { AIEventPayload } from '../../model/events/ai-events.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import type { GenerationPorts } from '../lanes/lane-ports.ts'
import { storedEventAt } from '../lanes/stored-event.ts'
import type { ResolverContext } from '../wiring/agent-options.ts'
import type { StepCompaction } from './compaction.ts'
import { promptMessages, toolDefinitions } from './prompt.ts'
import { type ResolvedModel, resolveModel } from './resolve-model.ts'
import { warnLeftOut, wellFormedPrompt } from './well-formed-prompt.ts'

export type RequestedEvent = StoredEvent<
  'ai.generation.requested',
  AIEventPayload<'ai.generation.requested'>
>

/** A step whose resolvers answered: what it runs with. */
export interface ReadyStep {
  model: ResolvedModel
  instructions: string | undefined
  compaction: StepCompaction
  messages: UIMessage[]
  resolverContext: ResolverContext
  definitions: ReturnType<typeof toolDefinitions>
}

/** A step whose resolver threw: it fails, with what was resolved before. */
interface UnresolvedStep {
  failure: string
  model?: ResolvedModel
  compaction?: StepCompaction
}

export type PreparedStep = ReadyStep | UnresolvedStep

/**
 * The request being served, as stored (what resolvers and a custom
 * `generate` receive as `event`).
 */
export async function requestedEvent(
  lane: GenerationPorts,
  sessionId: string,
  state: AIState,
  serve: StepToServe,
): Promise<RequestedEvent> {
  const at = state.active?.request
  if (at === undefined || at.id !== serve.requestId) {
    throw new Error(`a2: session ${sessionId} does not say where request ${serve.requestId} is`)
  }
  return (await storedEventAt(lane.read, sessionId, at)) as RequestedEvent
}

/**
 * The step's model, instructions and compaction, from the resolvers (a
 * throwing resolver fails the step). A retried, resumed or recovered attempt
 * does not see the output of the attempt it replaces.
 */
export async function prepareStep(
  lane: GenerationPorts,
  snapshot: StateSnapshot<SessionState>,
  serve: StepToServe,
  event: RequestedEvent,
): Promise<PreparedStep> {
  const state = snapshot.state.ai
  const messages = await wellFormedPrompt(
    promptMessages(state, {
      withoutCurrentStep: state.response?.uncommittedStep === true || serve.replaces !== undefined,
    }),
    warnLeftOut(lane.config.logger, event.sessionId),
  )
  const resolverContext: ResolverContext = {
    state: snapshot.state.app,
    messages,
    event,
    sessionId: event.sessionId,
  }
  let model: ResolvedModel | undefined
  let compaction: StepCompaction | undefined
  try {
    model = await resolveModel(await lane.config.model(resolverContext))
    const instructions = await lane.config.instructions(resolverContext)
    compaction = await lane.config.compaction(resolverContext)
    return {
      model,
      instructions,
      compaction,
      messages,
      resolverContext,
      definitions: toolDefinitions(lane.config.tools),
    }
  } catch (error) {
    return {
      failure: messageOf(error),
      ...(model ? { model } : {}),
      ...(compaction ? { compaction } : {}),
    }
  }
}

/**
 * The first generation with each Gateway model records a metadata request,
 * which the metadata lane answers: only while compaction is on (it needs the
 * model's limits), and not for AI SDK model objects (not in the catalog).
 */
export function wantsMetadata(step: PreparedStep, state: AIState): boolean {
  const { model, compaction } = step
  return (
    model !== undefined &&
    compaction?.on === true &&
    model.gateway &&
    !Object.hasOwn(state.modelMetadata, model.modelId)
  )
}
