import type { AgentEvent } from '@mariozechner/pi-agent-core'
import type {
  AssistantMessage,
  AssistantMessageEvent,
  AssistantMessageEventStream,
  Context,
  SimpleStreamOptions,
  StopReason,
  ToolCall,
  Usage,
} from '@mariozechner/pi-ai'
import { type ModelMessage, streamText, type UIMessageChunk } from 'ai'
import type { HarnessStepContext } from '../../agent/harness/harness.ts'
import { messageOf } from '../../log/message-of.ts'
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
    const snapshot = (): AssistantMessage => structuredClone(message)
    void (async () => {
      const { settings, resolved } = step
      const signal = options?.signal ?? step.signal
      try {
        const result = streamText({
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
        emit({ type: 'start', partial: snapshot() })
        const blocks = new Map<string, number>()
        const open = (key: string, block: AssistantMessage['content'][number]): number => {
          const index = message.content.push(block) - 1
          blocks.set(key, index)
          return index
        }
        for await (const part of result.fullStream) {
          switch (part.type) {
            case 'text-start':
              emit({
                type: 'text_start',
                contentIndex: open(`t${part.id}`, { type: 'text', text: '' }),
                partial: snapshot(),
              })
              break
            case 'text-delta': {
              const index =
                blocks.get(`t${part.id}`) ?? open(`t${part.id}`, { type: 'text', text: '' })
              ;(message.content[index] as { text: string }).text += part.text
              emit({
                type: 'text_delta',
                contentIndex: index,
                delta: part.text,
                partial: snapshot(),
              })
              break
            }
            case 'text-end': {
              const index = blocks.get(`t${part.id}`)
              if (index === undefined) break
              const block = message.content[index] as { text: string }
              emit({
                type: 'text_end',
                contentIndex: index,
                content: block.text,
                partial: snapshot(),
              })
              break
            }
            case 'reasoning-start':
              emit({
                type: 'thinking_start',
                contentIndex: open(`r${part.id}`, { type: 'thinking', thinking: '' }),
                partial: snapshot(),
              })
              break
            case 'reasoning-delta': {
              const index =
                blocks.get(`r${part.id}`) ?? open(`r${part.id}`, { type: 'thinking', thinking: '' })
              ;(message.content[index] as { thinking: string }).thinking += part.text
              emit({
                type: 'thinking_delta',
                contentIndex: index,
                delta: part.text,
                partial: snapshot(),
              })
              break
            }
            case 'reasoning-end': {
              const index = blocks.get(`r${part.id}`)
              if (index === undefined) break
              const block = message.content[index] as { thinking: string }
              emit({
                type: 'thinking_end',
                contentIndex: index,
                content: block.thinking,
                partial: snapshot(),
              })
              break
            }
            case 'tool-input-start':
              emit({
                type: 'toolcall_start',
                contentIndex: open(`c${part.id}`, {
                  type: 'toolCall',
                  id: part.id,
                  name: part.toolName,
                  arguments: {},
                }),
                partial: snapshot(),
              })
              break
            case 'tool-input-delta': {
              const index = blocks.get(`c${part.id}`)
              if (index !== undefined) {
                emit({
                  type: 'toolcall_delta',
                  contentIndex: index,
                  delta: part.delta,
                  partial: snapshot(),
                })
              }
              break
            }
            case 'tool-call': {
              let index = blocks.get(`c${part.toolCallId}`)
              if (index === undefined) {
                index = open(`c${part.toolCallId}`, {
                  type: 'toolCall',
                  id: part.toolCallId,
                  name: part.toolName,
                  arguments: {},
                })
                emit({ type: 'toolcall_start', contentIndex: index, partial: snapshot() })
              }
              const call = message.content[index] as ToolCall
              call.arguments = (part.input ?? {}) as Record<string, unknown>
              emit({
                type: 'toolcall_end',
                contentIndex: index,
                toolCall: { ...call },
                partial: snapshot(),
              })
              break
            }
            case 'finish':
              message.stopReason = stopReasonOf(part.finishReason)
              message.usage = usageOf(part.totalUsage)
              break
            case 'error':
              throw part.error
            case 'abort':
              throw signal?.reason ?? new Error('aborted')
          }
        }
        const reason = message.stopReason as Extract<StopReason, 'stop' | 'length' | 'toolUse'>
        emit({ type: 'done', reason, message: snapshot() })
      } catch (error) {
        message.stopReason = signal?.aborted ? 'aborted' : 'error'
        message.errorMessage = messageOf(error)
        emit({ type: 'error', reason: message.stopReason, error: snapshot() })
      }
    })()
    return out
  }
}

function stopReasonOf(reason: string | undefined): StopReason {
  if (reason === 'tool-calls') return 'toolUse'
  if (reason === 'length') return 'length'
  if (reason === 'error') return 'error'
  return 'stop'
}

function emptyUsage(): Usage {
  return {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  }
}

function usageOf(usage: {
  inputTokens?: number | undefined
  outputTokens?: number | undefined
  totalTokens?: number | undefined
  inputTokenDetails?: {
    cacheReadTokens?: number | undefined
    cacheWriteTokens?: number | undefined
  }
}): Usage {
  const input = usage.inputTokens ?? 0
  const output = usage.outputTokens ?? 0
  return {
    ...emptyUsage(),
    input,
    output,
    cacheRead: usage.inputTokenDetails?.cacheReadTokens ?? 0,
    cacheWrite: usage.inputTokenDetails?.cacheWriteTokens ?? 0,
    totalTokens: usage.totalTokens ?? input + output,
  }
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
