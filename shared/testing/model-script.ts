import type { LanguageModelV4StreamPart, LanguageModelV4Usage } from '@ai-sdk/provider'
import { sleep } from '../timing/sleep.ts'

// The script vocabulary every model double answers with: the AI SDK's own
// test model (`scriptedModel()`), and the wire doubles of AI Gateway and
// Amazon Bedrock (`gatewayDouble()`, `bedrockDouble()`), so one script runs
// an agent through any of them. A step is what one model call answers.

/**
 * One model call's answer: the stream parts it streams (the AI SDK's
 * `LanguageModelV4StreamPart`s, as built by `text()`, `toolCalls()`,
 * `reasoning()`), a failed call, or a stream that stalls until `release()`.
 */
export type Step =
  | LanguageModelV4StreamPart[]
  /**
   * The call fails before it streams: the scripted model throws; a wire
   * double answers with the HTTP `status` (default 500) and its service's
   * error body (`type`: the Gateway's error type or Bedrock's exception name).
   */
  | { error: string; status?: number; type?: string }
  /** Streams `parts`, then waits: `release()` streams `afterRelease` and ends the stream. */
  | {
      hang: true
      parts?: LanguageModelV4StreamPart[]
      afterRelease?: LanguageModelV4StreamPart[]
    }

/** A model call as a double received it, the same for every double. */
export interface ModelCall {
  /** The model (or inference profile) ID the call asked for. */
  modelId: string
  /** The system prompt (instructions), when there is one. */
  system: string | undefined
  /** The conversation, one entry per message: its text parts joined, tool parts as JSON. */
  messages: { role: 'user' | 'assistant' | 'tool'; text: string }[]
  /** The names of the tools the call offered the model. */
  tools: string[]
  /** The request body as the provider sent it (the double's wire format). */
  body: unknown
}

/**
 * What a double answers with: the steps in order, or a step chosen per call
 * (a double may pass its own kind of call, with its wire body typed).
 */
export type Script<Call extends ModelCall = ModelCall> =
  | readonly Step[]
  | ((call: Call, index: number) => Step | undefined)

/** The text of a call's last user message: what most scripts branch on. */
export function lastUserText(call: ModelCall): string {
  return call.messages.findLast((message) => message.role === 'user')?.text ?? ''
}

const usage: LanguageModelV4Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

/** A text answer, streamed in `chunks` deltas. */
export function text(
  content: string,
  { chunks = 1 }: { chunks?: number } = {},
): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    ...textBlock('t1', content, chunks),
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ]
}

/** Reasoning, then a text answer (a reasoning model's step). */
export function reasoning(thought: string, answer: string): LanguageModelV4StreamPart[] {
  return [
    { type: 'stream-start', warnings: [] },
    { type: 'reasoning-start', id: 'r1' },
    { type: 'reasoning-delta', id: 'r1', delta: thought },
    { type: 'reasoning-end', id: 'r1' },
    ...textBlock('t1', answer, 1),
    { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
  ]
}

/** A step that calls tools, each with its whole input in one `tool-call` part. */
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

function textBlock(id: string, content: string, chunks: number): LanguageModelV4StreamPart[] {
  const size = Math.max(1, Math.ceil(content.length / chunks))
  const deltas: LanguageModelV4StreamPart[] = []
  for (let at = 0; at < content.length; at += size) {
    deltas.push({ type: 'text-delta', id, delta: content.slice(at, at + size) })
  }
  return [{ type: 'text-start', id }, ...deltas, { type: 'text-end', id }]
}

/** The step a script gives call number `index` (0-based), or a failure that says the script ran out. */
export function stepOf<Call extends ModelCall>(
  script: Script<Call>,
  call: Call,
  index: number,
): Step {
  const step = typeof script === 'function' ? script(call, index) : script[index]
  return step ?? { error: `The script has no step ${index + 1}` }
}

/**
 * The parts a step streams, with the finish part's input tokens set to
 * about what a tokenizer would count for the request (its bytes over four),
 * so compaction's calibration against usage sees plausible figures.
 */
export function withInputTokens(
  parts: readonly LanguageModelV4StreamPart[],
  requestBytes: number,
): LanguageModelV4StreamPart[] {
  const inputTokens = Math.ceil(requestBytes / 4)
  return parts.map((part) =>
    part.type === 'finish' && typeof part.usage === 'object'
      ? {
          ...part,
          usage: {
            ...part.usage,
            inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
          },
        }
      : part,
  )
}

/**
 * Streams a step's parts, each `chunkDelayMs` after the one before; a
 * hanging step stays open until its release (the function `onHang`
 * receives) is called, then streams its `afterRelease`. Either ends when
 * `signal` aborts, erroring with the abort's reason, as a provider's stream
 * does.
 */
export function stepStream(
  step: Exclude<Step, { error: string }>,
  signal: AbortSignal | undefined,
  onHang: (release: () => void) => void,
  { chunkDelayMs = 0 }: { chunkDelayMs?: number } = {},
): ReadableStream<LanguageModelV4StreamPart> {
  if (!Array.isArray(step)) return hangingStream(step, signal, onHang)
  let next = 0
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      if (chunkDelayMs > 0 && next > 0) await sleep(chunkDelayMs, signal)
      // A stopped caller gets no more parts, not the rest of a slow answer.
      if (signal?.aborted) return controller.error(signal.reason ?? new Error('aborted'))
      const part = step[next++]
      if (part === undefined) controller.close()
      else controller.enqueue(part)
    },
  })
}

function hangingStream(
  step: Extract<Step, { hang: true }>,
  signal: AbortSignal | undefined,
  onHang: (release: () => void) => void,
): ReadableStream<LanguageModelV4StreamPart> {
  // A reader that cancels (a stopped caller) ends it: a later release finds it done.
  let done = false
  return new ReadableStream<LanguageModelV4StreamPart>({
    cancel() {
      done = true
    },
    start(controller) {
      for (const part of step.parts ?? []) controller.enqueue(part)
      const end = (finish: () => void) => {
        if (!done) finish()
        done = true
      }
      signal?.addEventListener(
        'abort',
        () => end(() => controller.error(signal.reason ?? new Error('aborted'))),
        { once: true },
      )
      onHang(() =>
        end(() => {
          for (const part of step.afterRelease ?? []) controller.enqueue(part)
          controller.close()
        }),
      )
    },
  })
}
