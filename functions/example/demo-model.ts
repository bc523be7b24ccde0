import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
} from '@ai-sdk/provider'
import { sleep } from '../../shared/timing/sleep.ts'

/**
 * The offline demo model `npm start` uses when no AI Gateway key is set: a
 * few rules instead of a language model, so the example works with no
 * network. It streams word by word, calls `closeTicket` for "close ticket
 * T-42" and `setReminder` for "remind me in 10 seconds to stretch", answers
 * a message that mentions markdown with some, and says plainly that it is a
 * demo.
 */
export function demoModel({ wordDelayMs = 40 } = {}): LanguageModelV4 {
  return {
    specificationVersion: 'v4',
    provider: 'a2-demo',
    modelId: 'offline-demo',
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
  if (last?.role === 'tool') {
    const outputs = last.content
      .map((part) => (part.type === 'tool-result' ? JSON.stringify(part.output) : ''))
      .join(' ')
    return words(parts, `Done. The tool answered: ${outputs}`, wordDelayMs, options.abortSignal)
  }
  const said =
    last?.role === 'user'
      ? last.content
          .map((part) => (part.type === 'text' ? part.text : ''))
          .join(' ')
          .trim()
      : ''
  const ticket = /close (?:ticket )?([A-Z]+-\d+)/i.exec(said)
  if (ticket) return toolCall(parts, 'closeTicket', { ticketId: ticket[1]?.toUpperCase() })
  const reminder = /remind me in (\d+) ?(s|sec|secs|seconds?|m|mins?|minutes?) to (.+)/i.exec(said)
  if (reminder) {
    const amount = Number(reminder[1])
    const delaySeconds = reminder[2]?.startsWith('m') ? amount * 60 : amount
    return toolCall(parts, 'setReminder', { delaySeconds, reminder: reminder[3] })
  }
  if (/\bmarkdown\b/i.test(said)) return words(parts, MARKDOWN, wordDelayMs, options.abortSignal)
  if (said.startsWith('Reminder:'))
    return words(parts, `⏰ ${said}`, wordDelayMs, options.abortSignal)
  return words(
    parts,
    `[offline demo model] You said: "${said}". Set AI_GATEWAY_API_KEY for a real model. Meanwhile try "close ticket T-42" (it asks for your approval) or "remind me in 10 seconds to stretch".`,
    wordDelayMs,
    options.abortSignal,
  )
}

/** What a real model's formatted answer looks like, for the page's markdown. */
const MARKDOWN = [
  'The chat page renders **markdown** as it streams:',
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
      controller.enqueue({ type: 'text-start', id: 'demo' })
      for (const token of tokens) {
        if (signal?.aborted) return controller.error(signal.reason)
        controller.enqueue({ type: 'text-delta', id: 'demo', delta: token })
        await sleep(delayMs)
      }
      controller.enqueue({ type: 'text-end', id: 'demo' })
      controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage })
      controller.close()
    },
  })
}
