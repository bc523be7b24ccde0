import type { AgentEvent } from '@mariozechner/pi-agent-core'
import type {
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStream,
  Context,
  SimpleStreamOptions,
  StopReason,
} from '@mariozechner/pi-ai'
import { type ModelMessage, streamText, type UIMessageChunk } from 'ai'
import type { HarnessStepContext } from '../../agent/harness/harness.ts'
import { messageOf } from '../../log/message-of.ts'
import { emptyUsage, piMessageWriter } from './pi-message-writer.ts'
import { modelMessagesOfPi } from './pi-messages.ts'

type PiAi = typeof import('@mariozechner/pi-ai')

/**
 * Pi's `streamFn` on the agent's model: the context Pi's loop sends goes to
 * the AI SDK's `streamText` on the step's model (a Gateway ID, a `bedrock:`
 * ID, an AI SDK model), with A2's tool definitions and no `execute`, and its
 * stream comes back as Pi's assistant message events.
 */
export function a2StreamFn(
  ai: PiAi,
  step: HarnessStepContext,
  originals: WeakMap<object, ModelMessage>,
) {
  return (
    model: { api: string; provider: string; id: string },
    context: Context,
    options?: SimpleStreamOptions,
  ): AssistantMessageEventStream => {
    const out = ai.createAssistantMessageEventStream()
    const message: AssistantMessage = {
      role: 'assistant',
      content: [],
      api: model.api,
      provider: model.provider,
      model: model.id,
      usage: emptyUsage(),
      stopReason: 'stop',
      timestamp: Date.now(),
    }
    const emit = (event: AssistantMessageEvent) => out.push(event)
    const writer = piMessageWriter(message, emit)
    void (async () => {
      const signal = options?.signal ?? step.signal
      try {
        const result = streamStep(step, context, originals, signal)
        emit({ type: 'start', partial: writer.snapshot() })
        for await (const part of result.fullStream) writer.write(part, signal)
        const reason = message.stopReason as Extract<StopReason, 'stop' | 'length' | 'toolUse'>
        emit({ type: 'done', reason, message: writer.snapshot() })
      } catch (error) {
        message.stopReason = signal?.aborted ? 'aborted' : 'error'
        message.errorMessage = messageOf(error)
        emit({ type: 'error', reason: message.stopReason, error: writer.snapshot() })
      }
    })()
    return out
  }
}

/** The model call of Pi's context: `streamText` with the step's model, tools and settings. */
function streamStep(
  step: HarnessStepContext,
  context: Context,
  originals: WeakMap<object, ModelMessage>,
  signal: AbortSignal | undefined,
) {
  const { settings, resolved } = step
  return streamText({
    model: step.model,
    messages: modelMessagesOfPi(context.messages, originals),
    tools: step.tools,
    abortSignal: signal,
    onError: () => {},
    ...(context.systemPrompt ? { instructions: context.systemPrompt } : {}),
    ...(resolved.reasoning === undefined ? {} : { reasoning: resolved.reasoning }),
    ...(settings.maxOutputTokens === undefined
      ? {}
      : { maxOutputTokens: settings.maxOutputTokens }),
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(step.telemetry ? { telemetry: step.telemetry } : {}),
    ...(settings.providerOptions || resolved.providerOptions
      ? { providerOptions: { ...resolved.providerOptions, ...settings.providerOptions } }
      : {}),
  })
}

/**
 * Pi's loop events as the step's UI message chunks: the assistant message
 * Pi streams becomes the response's text, reasoning and tool calls (each
 * call `tool-input-available` the moment Pi's `toolcall_end` has its
 * arguments, so A2 records it while the model still streams).
 */
export function chunksOfPiEvent(
  event: AgentEvent,
  responseMessageId: string,
  toolNames: Map<string, string>,
): UIMessageChunk[] {
  if (event.type === 'message_start' && event.message.role === 'assistant') {
    return [{ type: 'start', messageId: responseMessageId }, { type: 'start-step' }]
  }
  if (event.type === 'message_end' && event.message.role === 'assistant') {
    const message = event.message as AssistantMessage
    if (message.stopReason === 'aborted') return []
    if (message.stopReason === 'error') {
      return [{ type: 'error', errorText: message.errorMessage ?? 'The model call failed' }]
    }
    return [
      { type: 'finish-step' },
      { type: 'finish', finishReason: finishReasonOf(message.stopReason) },
    ]
  }
  if (event.type !== 'message_update') return []
  const update = event.assistantMessageEvent
  switch (update.type) {
    case 'text_start':
      return [{ type: 'text-start', id: `text-${update.contentIndex}` }]
    case 'text_delta':
      return [{ type: 'text-delta', id: `text-${update.contentIndex}`, delta: update.delta }]
    case 'text_end':
      return [{ type: 'text-end', id: `text-${update.contentIndex}` }]
    case 'thinking_start':
      return [{ type: 'reasoning-start', id: `reasoning-${update.contentIndex}` }]
    case 'thinking_delta':
      return [
        { type: 'reasoning-delta', id: `reasoning-${update.contentIndex}`, delta: update.delta },
      ]
    case 'thinking_end':
      return [{ type: 'reasoning-end', id: `reasoning-${update.contentIndex}` }]
    case 'toolcall_start': {
      const call = update.partial.content[update.contentIndex]
      if (call?.type !== 'toolCall') return []
      toolNames.set(call.id, call.name)
      return [{ type: 'tool-input-start', toolCallId: call.id, toolName: call.name }]
    }
    case 'toolcall_delta': {
      const call = update.partial.content[update.contentIndex]
      if (call?.type !== 'toolCall') return []
      return [{ type: 'tool-input-delta', toolCallId: call.id, inputTextDelta: update.delta }]
    }
    case 'toolcall_end':
      return [
        {
          type: 'tool-input-available',
          toolCallId: update.toolCall.id,
          toolName: update.toolCall.name,
          input: update.toolCall.arguments,
        },
      ]
    default:
      return []
  }
}

function finishReasonOf(reason: StopReason): 'stop' | 'length' | 'tool-calls' | 'error' {
  if (reason === 'toolUse') return 'tool-calls'
  if (reason === 'length') return 'length'
  return 'stop'
}
