import { streamText, type UIMessageChunk } from 'ai'
import type { GenerateContext, MessageMetadataContext } from '../wiring/agent-options.ts'
import { modelErrorText } from './model-error.ts'
import type { ResolvedModel } from './resolve-model.ts'

/**
 * One model step with the AI SDK: `streamText` with the tool definitions but
 * no `execute`, so the step ends at its tool calls and A2 runs them.
 */
export function defaultGenerate(
  context: GenerateContext,
  resolved: ResolvedModel,
  messageMetadata: ((context: MessageMetadataContext) => unknown) | undefined,
): { stream: ReadableStream<UIMessageChunk>; usage: PromiseLike<unknown> } {
  const { settings } = context
  const result = streamText({
    model: context.model,
    messages: context.modelMessages,
    tools: context.tools,
    abortSignal: context.signal,
    // Failures are recorded in the log (ai.generation.completed); the SDK's
    // default would also print them.
    onError: () => {},
    ...(context.instructions === undefined ? {} : { instructions: context.instructions }),
    ...(resolved.reasoning === undefined ? {} : { reasoning: resolved.reasoning }),
    ...(settings.maxOutputTokens === undefined
      ? {}
      : { maxOutputTokens: settings.maxOutputTokens }),
    ...(settings.temperature === undefined ? {} : { temperature: settings.temperature }),
    ...(context.telemetry ? { telemetry: context.telemetry } : {}),
    ...(settings.providerOptions || resolved.providerOptions
      ? { providerOptions: { ...resolved.providerOptions, ...settings.providerOptions } }
      : {}),
  })
  const stream = result.toUIMessageStream({
    generateMessageId: () =>
      (context.event.payload as { responseMessageId: string }).responseMessageId,
    sendReasoning: true,
    sendSources: true,
    onError: modelErrorText,
    ...(messageMetadata
      ? {
          messageMetadata: ({ part }: { part: MessageMetadataContext['part'] }) =>
            messageMetadata({ ...context, part }),
        }
      : {}),
  })
  return { stream, usage: result.usage }
}
