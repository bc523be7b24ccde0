import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { simulateReadableStream } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'

/**
 * A scripted model: the AI SDK's own test model, answering each model call
 * with the next step of the script. Steps are built with the helpers below.
 */
export type Step =
  | LanguageModelV4StreamPart[]
  | { error: string }
  /** Streams `parts`, then waits: `release()` streams `afterRelease` and ends the stream. */
  | {
      hang: true
      parts?: LanguageModelV4StreamPart[]
      afterRelease?: LanguageModelV4StreamPart[]
    }

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

export function text(
  content: string,
  { chunks = 1 }: { chunks?: number } = {},
): LanguageModelV4StreamPart[] {
  const size = Math.ceil(content.length / chunks)
  const deltas: LanguageModelV4StreamPart[] = []
  for (let at = 0; at < content.length; at += size) {
    deltas.push({ type: 'text-delta', id: 't1', delta: content.slice(at, at + size) })
  }
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    ...deltas,
    { type: 'text-end', id: 't1' },
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ]
}

export function toolCalls(
  ...calls: { toolCallId: string; toolName: string; input: unknown }[]
): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    ...calls.map(
      (call): LanguageModelV4StreamPart => ({
        type: 'tool-call',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        input: JSON.stringify(call.input),
      }),
    ),
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  ]
}

export interface ScriptedModel {
  model: MockLanguageModelV4
  /** The prompts the model was called with, one per call. */
  calls: MockLanguageModelV4['doStreamCalls']
  /** Lets a hanging step finish (or its abort reach it). */
  release(): void
}

export function scriptedModel(
  steps: Step[] | ((options: LanguageModelV4CallOptions) => Step | undefined),
  { chunkDelayMs = 0 }: { chunkDelayMs?: number } = {},
): ScriptedModel {
  let next = 0
  let release: () => void = () => {}
  const model = new MockLanguageModelV4({
    provider: 'scripted',
    modelId: 'script',
    doStream: async (options) => {
      const step = typeof steps === 'function' ? steps(options) : steps[next]
      next++
      if (step === undefined) throw new Error(`The script has no step ${next}`)
      if ('error' in step) throw new Error(step.error)
      if ('hang' in step) {
        const parts = step.parts ?? []
        const stream = new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part)
            let done = false
            const end = () => {
              if (!done) controller.error(options.abortSignal?.reason ?? new Error('aborted'))
              done = true
            }
            options.abortSignal?.addEventListener('abort', end, { once: true })
            release = () => {
              if (!done) {
                for (const part of step.afterRelease ?? []) controller.enqueue(part)
                controller.close()
              }
              done = true
            }
          },
        })
        return { stream }
      }
      // Input tokens as a tokenizer would roughly count them, so compaction's
      // calibration against usage sees plausible figures.
      const inputTokens = Math.ceil(JSON.stringify(options.prompt).length / 4)
      const chunks = step.map((part) =>
        part.type === 'finish'
          ? {
              ...part,
              usage: {
                ...part.usage,
                inputTokens: {
                  total: inputTokens,
                  noCache: inputTokens,
                  cacheRead: 0,
                  cacheWrite: 0,
                },
              },
            }
          : part,
      )
      return {
        stream: simulateReadableStream({
          chunks,
          initialDelayInMs: null,
          chunkDelayInMs: chunkDelayMs || null,
        }),
      }
    },
  })
  return { model, calls: model.doStreamCalls, release: () => release() }
}
