import { createHash } from 'node:crypto'
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import { type ModelCall, type Step, withInputTokens } from '../model-script.ts'
import { callOfPrompt, type PromptMessage } from '../prompt-call.ts'
import type { Faults } from './faults.ts'
import type { Random } from './random.ts'
import type { World } from './world.ts'

/** A model call as a simulation's script sees it: the usual `ModelCall`, and whose session it is. */
export interface SimModelCall extends ModelCall {
  sessionId: string
}

/** What the model answers a call with (faults are the simulator's, on top). */
export type SimScript = (call: SimModelCall) => Step

/** One model call's life, in the world's order of things, to check that a session's never overlap. */
export interface ModelSpan {
  sessionId: string
  owner: number
  /** The call's number in the run, and the number of the call or end that came before its end. */
  start: number
  end?: number
  how?: string
  /** Open while its process was frozen, or opened as it thawed: it may overlap a takeover's. */
  frozen?: boolean
  /**
   * What the call streamed to its reader, the content oracle's truth: as
   * it stood after each tool call (where a takeover may close the step on
   * the calls recorded so far), and whole once it sent its `finish`.
   */
  produced: ModelOutput[]
}

/** A model call's content: its text (every text delta, in order) and its tool calls. */
interface ModelOutput {
  text: string
  toolCalls: { toolName: string; input: string }[]
}

/** The model calls of a run, numbered in the order they start and end. */
export class ModelSpans {
  readonly spans: ModelSpan[] = []
  private clock = 0

  open(sessionId: string, owner: number): ModelSpan {
    const span: ModelSpan = { sessionId, owner, start: ++this.clock, produced: [] }
    this.spans.push(span)
    return span
  }

  close(span: ModelSpan, how: string): void {
    if (span.end !== undefined) return
    span.end = ++this.clock
    span.how = how
  }

  /** A frozen process's open calls outlive its claims: a takeover's may begin beside them. */
  frozen(owner: number): void {
    for (const span of this.spans)
      if (span.owner === owner && span.end === undefined) span.frozen = true
  }

  /** A dead process's calls are over (its connections are gone). */
  closeAllOf(owner: number): void {
    for (const span of this.spans) if (span.owner === owner) this.close(span, 'killed')
  }
}

/** How long after its thaw a process's new model call is of the work it froze in. */
const ZOMBIE_MS = 1_000

/** A stalled or hanging stream gives up after this long, as a provider's socket would. */
const HANG_LIMIT_MS = 10 * 60_000
/**
 * Content too large to store in one event even gzipped (the stores gzip a
 * large payload): base64 of a hash chain, which does not compress, long
 * enough that its gzip is over `MAX_EVENT_BYTES`. The same every run.
 */
const OVERSIZED = (() => {
  const blocks: Buffer[] = []
  let block = createHash('sha256').update('a2-aws simulator').digest()
  for (let bytes = 0; bytes < 480 * 1024; bytes += block.length) {
    blocks.push(block)
    block = createHash('sha256').update(block).digest()
  }
  return Buffer.concat(blocks).toString('base64')
})()

/**
 * A process's model: answers each call with the script's step, reading
 * each part as a call into the world (so processes interleave mid-stream
 * and may die there), with the model faults of the plan on top: a call
 * that fails, a stream that errors midway, a malformed part (a call to no
 * tool, input that is not JSON, a delta of no block), a part too large to
 * store, a stream that stalls and then goes on or times out. A hanging step
 * stays open until aborted (or ten minutes, its provider's timeout).
 */
export function simModel(
  world: World,
  owner: number,
  script: SimScript,
  faults: Faults,
  random: Random,
  spans: ModelSpans,
  sessionOfCall: () => string | undefined,
  oversizedPrompts: Set<string>,
): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'simulated',
    modelId: 'sim-model',
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('The simulated model only streams')),
    async doStream(options: LanguageModelV4CallOptions) {
      const sessionId = sessionOfCall() ?? 'unknown'
      const call: SimModelCall = {
        ...callOfPrompt(
          'sim-model',
          options.prompt as readonly PromptMessage[],
          options.tools?.map((tool) => ({ name: tool.name })),
          undefined,
        ),
        sessionId,
      }
      // A call made with an aborted signal fails at once, as fetch does.
      if (options.abortSignal?.aborted) throw options.abortSignal.reason ?? new Error('aborted')
      const span = spans.open(sessionId, owner)
      // Opened by a process just thawed, on what it knew before its freeze:
      // its claim ran out, and its next renewal (or fenced write) ends it.
      if (world.thawedWithin(owner, ZOMBIE_MS)) span.frozen = true
      world.log(`p${owner}`, `model call (${sessionId})`)
      await world.call(
        owner,
        `model.doStream(${sessionId})`,
        random.between(5, 50),
        () => undefined,
      )
      if (faults.strikes('model.error')) {
        spans.close(span, 'error')
        world.log(`p${owner}`, 'fault model.error')
        throw new Error('The model provider answered 503 Service Unavailable')
      }
      const step = script(call)
      if ('error' in step) {
        spans.close(span, 'error')
        throw new Error(step.error)
      }
      // A model that answered a prompt with output too large to store tends
      // to do it again: the same prompt gets the same oversized answer.
      const prompt = `${sessionId}\u0000${call.messages.length}\u0000${call.messages.at(-1)?.text ?? ''}`
      const oversized = oversizedPrompts.has(prompt) || faults.strikes('model.oversized')
      if (oversized) oversizedPrompts.add(prompt)
      const parts = Array.isArray(step)
        ? faulty(
            withInputTokens(step, JSON.stringify(options.prompt).length),
            faults,
            world,
            owner,
            oversized,
          )
        : [...(step.parts ?? []), HANG as Planned]
      return { stream: partStream(parts, options.abortSignal, world, owner, random, span, spans) }
    },
  }
}

/** Where a stream waits: a hanging step's end, or a stall. */
const HANG: unique symbol = Symbol('hang')
type Planned =
  | LanguageModelV4StreamPart
  | typeof HANG
  | { stall: number; after: 'go-on' | 'time-out' }

function faulty(
  parts: LanguageModelV4StreamPart[],
  faults: Faults,
  world: World,
  owner: number,
  oversized: boolean,
): Planned[] {
  const planned: Planned[] = [...parts]
  const say = (what: string) => world.log(`p${owner}`, `fault ${what}`)
  if (faults.strikes('model.malformed')) {
    say('model.malformed')
    const call = parts.findIndex((part) => part.type === 'tool-call')
    const part = parts[call]
    if (part?.type === 'tool-call') {
      planned[call] = faults.pick([
        { ...part, toolName: 'noSuchTool' },
        { ...part, input: part.input.slice(0, Math.max(1, part.input.length - 3)) },
      ])
    } else planned.splice(1, 0, { type: 'text-delta', id: 'no-such-block', delta: '?' })
  }
  if (oversized) {
    say('model.oversized')
    const call = parts.findIndex((part) => part.type === 'tool-call')
    const part = parts[call]
    const huge = OVERSIZED
    if (
      part?.type === 'tool-call' &&
      faults.pick(['input', 'after the call'] as const) === 'input'
    ) {
      const input = JSON.parse(part.input) as Record<string, unknown>
      planned[call] = { ...part, input: JSON.stringify({ ...input, padding: huge }) }
    } else if (part?.type === 'tool-call') {
      // After the call was streamed (and recorded, and its tool started): the step's end is unstorable.
      planned.splice(
        call + 1,
        0,
        { type: 'text-start', id: 'big' },
        { type: 'text-delta', id: 'big', delta: huge },
        { type: 'text-end', id: 'big' },
      )
    } else
      planned.splice(
        1,
        0,
        { type: 'text-start', id: 'big' },
        { type: 'text-delta', id: 'big', delta: huge },
        { type: 'text-end', id: 'big' },
      )
  }
  if (faults.strikes('model.error-mid-stream')) {
    say('model.error-mid-stream')
    // Anywhere after the stream's start, its finish too: an error after a
    // tool call, once the call is recorded and its tool may have run.
    const at = faults.between(1, Math.max(1, planned.length - 1))
    planned.splice(at, planned.length - at, {
      type: 'error',
      error: new Error('The stream ended early: connection reset by peer'),
    })
  }
  if (faults.strikes('model.stall')) {
    say('model.stall')
    const at = faults.between(1, Math.max(1, planned.length - 1))
    planned.splice(at, 0, {
      stall: faults.between(2_000, 120_000),
      after: faults.pick(['go-on', 'time-out'] as const),
    })
  }
  return planned
}

function partStream(
  planned: Planned[],
  signal: AbortSignal | undefined,
  world: World,
  owner: number,
  random: Random,
  span: ModelSpan,
  spans: ModelSpans,
): ReadableStream<LanguageModelV4StreamPart> {
  let next = 0
  const output: ModelOutput = { text: '', toolCalls: [] }
  // An aborted call is over when it aborts, as a fetch's connection closes then.
  if (signal?.aborted) spans.close(span, 'aborted')
  const stopWatching = closeOnAbort(signal, spans, span)
  return new ReadableStream<LanguageModelV4StreamPart>({
    async pull(controller) {
      for (;;) {
        if (signal?.aborted) {
          spans.close(span, 'aborted')
          stopWatching()
          return controller.error(signal.reason ?? new Error('aborted'))
        }
        const part = planned[next++]
        if (part === undefined) {
          spans.close(span, 'done')
          stopWatching()
          return controller.close()
        }
        if (part === HANG || 'stall' in part) {
          const ms = part === HANG ? HANG_LIMIT_MS : part.stall
          await world.sleep(owner, ms, signal)
          if (signal?.aborted) continue
          if (part === HANG || part.after === 'time-out') {
            spans.close(span, 'timed out')
            stopWatching()
            return controller.error(new Error(`The model stream stalled: no part for ${ms} ms`))
          }
          continue
        }
        await world.call(owner, `model read(${part.type})`, random.between(1, 20), () => undefined)
        if (signal?.aborted) continue
        controller.enqueue(part)
        if (part.type === 'text-delta') output.text += part.delta
        if (part.type === 'tool-call')
          output.toolCalls.push({ toolName: part.toolName, input: part.input })
        if (part.type === 'tool-call' || part.type === 'finish')
          span.produced.push({ text: output.text, toolCalls: [...output.toolCalls] })
        // The provider has sent all it will: the call is over, whenever its reader looks again.
        if (part.type === 'finish' || part.type === 'error')
          spans.close(span, part.type === 'finish' ? 'done' : 'error part')
        return
      }
    },
    cancel() {
      spans.close(span, 'cancelled')
      stopWatching()
    },
  })
}

/**
 * Closes the span when `signal` aborts, until the stream is over (then the
 * listener goes). Apart from the stream's scope, so a listener left on a
 * signal that never aborts (a dead process's) holds the span, not the world.
 */
function closeOnAbort(
  signal: AbortSignal | undefined,
  spans: ModelSpans,
  span: ModelSpan,
): () => void {
  const aborted = (): void => spans.close(span, 'aborted')
  signal?.addEventListener('abort', aborted, { once: true })
  return () => signal?.removeEventListener('abort', aborted)
}
