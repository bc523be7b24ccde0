import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import { sleep } from '../../timing/sleep.ts'

/**
 * The model ID of the offline demo model: `agent({ model: 'offline' })`, or
 * `A2_MODEL=offline` where an app reads its model from that variable. AI
 * Gateway IDs are `provider/model` and Bedrock's start with `bedrock:`, so
 * it names neither.
 */
export const OFFLINE_MODEL_ID = 'offline'

/** How the log names it (`provider/modelId`, as a model object would be named). */
export const OFFLINE_MODEL_NAME = 'a2-aws/offline'

/**
 * The offline demo model: a few rules instead of a language model, so an
 * agent runs with no key and no network. It streams word by word, says
 * plainly that it is a demo, and calls the tools of the repository's
 * example when the agent has them: `closeTicket` for "close ticket T-42"
 * and `setReminder` for "remind me in 10 seconds to stretch"; after a tool
 * it answers with the tool's output. A message that mentions markdown gets
 * some.
 *
 * @example
 * const support = agent({ name: 'support', model: offlineModel({ wordDelayMs: 0 }) })
 */
export function offlineModel({ wordDelayMs = 40 } = {}): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'a2-aws',
    modelId: OFFLINE_MODEL_ID,
    supportedUrls: {},
    doGenerate: () => Promise.reject(new Error('The offline demo model only streams')),
    doStream: async (options) => ({ stream: respond(options, wordDelayMs) }),
  }
}

const usage = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 0, text: 0, reasoning: 0 },
}

function respond(
  options: LanguageModelV4CallOptions,
  wordDelayMs: number,
): ReadableStream<LanguageModelV4StreamPart> {
  const last = options.prompt.at(-1)
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }]
  const say = (text: string) => words(parts, text, wordDelayMs, options.abortSignal)
  if (last?.role === 'tool') {
    const outputs = last.content
      .map((part) => (part.type === 'tool-result' ? outputText(part.output) : ''))
      .join(' ')
    return say(`Done. The tool answered: ${outputs}`)
  }
  const said =
    last?.role === 'user'
      ? last.content
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join(' ')
          .trim()
      : ''
  const offered = new Set((options.tools ?? []).map((tool) => tool.name))
  const ticket = /close (?:ticket )?([A-Z]+-\d+)/i.exec(said)
  if (ticket && offered.has('closeTicket')) {
    return toolCall(parts, 'closeTicket', { ticketId: ticket[1]?.toUpperCase() })
  }
  const reminder = /remind me in (\d+) ?(s|sec|secs|seconds?|m|mins?|minutes?) to (.+)/i.exec(said)
  if (reminder && offered.has('setReminder')) {
    const amount = Number(reminder[1])
    const delaySeconds = reminder[2]?.startsWith('m') ? amount * 60 : amount
    return toolCall(parts, 'setReminder', { delaySeconds, reminder: reminder[3] })
  }
  if (/\bmarkdown\b/i.test(said)) return say(MARKDOWN)
  if (said.startsWith('Reminder:')) return say(`⏰ ${said}`)
  const tries = [
    ...(offered.has('closeTicket') ? ['"close ticket T-42"'] : []),
    ...(offered.has('setReminder') ? ['"remind me in 10 seconds to stretch"'] : []),
    '"show me some markdown"',
  ]
  return say(
    `[offline demo model] You said: "${said}". This is A2's offline demo model, which answers by rules with no key and no network: give the agent a real model for real answers. Meanwhile try ${tries.join(' or ')}.`,
  )
}

/** A tool's output as the prompt carries it (`{ type: 'json', value }`), as text. */
function outputText(output: { type: string; value?: unknown }): string {
  if (output.type === 'text' || output.type === 'error-text') return String(output.value)
  return JSON.stringify(
    output.type === 'json' || output.type === 'error-json' ? output.value : output,
  )
}

/** What a real model's formatted answer looks like, for a page's markdown. */
const MARKDOWN = [
  'A chat page can render **markdown** as it streams:',
  '',
  '- a list item with `inline code`',
  '- a second item',
  '',
  '```ts',
  'const answer = 42',
  '```',
].join('\n')

function toolCall(parts: LanguageModelV4StreamPart[], toolName: string, input: unknown) {
  parts.push(
    {
      type: 'tool-call',
      toolCallId: `call-${crypto.randomUUID()}`,
      toolName,
      input: JSON.stringify(input),
    },
    { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
  )
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.close()
    },
  })
}

function words(
  parts: LanguageModelV4StreamPart[],
  text: string,
  delayMs: number,
  signal: AbortSignal | undefined,
): ReadableStream<LanguageModelV4StreamPart> {
  const tokens = text.split(/(?<= )/)
  return new ReadableStream<LanguageModelV4StreamPart>({
    async start(controller) {
      for (const part of parts) controller.enqueue(part)
      controller.enqueue({ type: 'text-start', id: 'offline' })
      for (const token of tokens) {
        if (signal?.aborted) return controller.error(signal.reason)
        controller.enqueue({ type: 'text-delta', id: 'offline', delta: token })
        await sleep(delayMs)
      }
      controller.enqueue({ type: 'text-end', id: 'offline' })
      controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage })
      controller.close()
    },
  })
}
