import type { LanguageModelV4Usage } from '@ai-sdk/provider'
import {
  type CatalogModel,
  type GatewayDouble,
  gatewayDouble,
} from '../../shared/testing/gateway-double.ts'
import {
  lastUserText,
  type ModelCall,
  type Step,
  text,
  toolCalls,
} from '../../shared/testing/model-script.ts'

/** The example agent's default model ID (`A2_MODEL` unset). */
export const EXAMPLE_MODEL = 'openai/gpt-5.6-terra'

/** What the double's catalog says of it: compaction (on by default) reads these. */
export const EXAMPLE_LIMITS: CatalogModel = { contextWindow: 400_000, maxOutputTokens: 128_000 }

/** The answer to a user message the script does not branch on. */
export const echo = (said: string): string => `echo from the gateway: ${said}`

/** What the model answers A2's compaction (its summary request). */
export const SUMMARY = 'The user greeted the agent and asked for nothing else yet.'

/** The answer after a tool ran: its result, as the model saw it. */
export const afterTool = (result: string): string => `Done, the tool said ${result}`

/** What the model answers "wait before answering" once released: before that it streams nothing. */
const AFTER_WAITING = 'Thanks for waiting.'

/** What the model streams for "take your time" before it hangs. */
export const THINKING = 'Let me think about that'
/** The rest of that answer, once the double is released. */
export const THOUGHT_OUT = ', and here is what I think.'

const FEW_TOKENS: LanguageModelV4Usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
}

/**
 * A model for the example agent (`functions/example/support-agent.ts`), per
 * call, as a real one would answer: the steps of `exampleBranch()`, and an
 * echo of anything else.
 */
function exampleScript(call: ModelCall): Step {
  return exampleBranch(call) ?? text(echo(lastUserText(call)), { chunks: 3 })
}

/**
 * The calls the example's model answers in its own way, or `undefined`:
 * "close ticket T-42" calls `closeTicket` (which needs approval), "remind me
 * in 1 second to stretch" calls `setReminder` (a timer), a tool result gets
 * an answer that quotes it, A2's summary request (compaction) gets
 * `SUMMARY`, "take your time" streams `THINKING` and hangs (until
 * stopped, or released: then it ends with `THOUGHT_OUT`), and "wait before
 * answering" hangs before its first token (released, it says
 * `AFTER_WAITING`). Tool call IDs
 * restart at `call_0` in every step, as several providers' do. A script of
 * its own adds branches and answers the rest (see `chatScript()`).
 */
export function exampleBranch(call: ModelCall): Step | undefined {
  const last = call.messages.at(-1)
  if (last?.role === 'tool') return text(afterTool(last.text))
  const said = lastUserText(call)
  if (said.startsWith('Summarize the conversation so far')) return text(SUMMARY)
  const ticket = /close ticket ([A-Z]+-\d+)/i.exec(said)
  if (ticket) {
    return toolCalls({
      toolCallId: 'call_0',
      toolName: 'closeTicket',
      input: { ticketId: ticket[1] },
    })
  }
  const reminder = /remind me in (\d+) seconds? to (.+)/i.exec(said)
  if (reminder) {
    return toolCalls({
      toolCallId: 'call_0',
      toolName: 'setReminder',
      input: { delaySeconds: Number(reminder[1]), reminder: reminder[2] },
    })
  }
  if (/wait before answering/i.test(said)) {
    return {
      hang: true,
      parts: [{ type: 'stream-start', warnings: [] }],
      afterRelease: [
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: AFTER_WAITING },
        { type: 'text-end', id: 't1' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: FEW_TOKENS },
      ],
    }
  }
  if (/take your time/i.test(said)) {
    return {
      hang: true,
      parts: [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: THINKING },
      ],
      afterRelease: [
        { type: 'text-delta', id: 't1', delta: THOUGHT_OUT },
        { type: 'text-end', id: 't1' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: FEW_TOKENS },
      ],
    }
  }
  return undefined
}

/** A Gateway double that answers as `exampleScript()` and lists the example's model (with `limits`). */
export function exampleGateway(limits: CatalogModel = EXAMPLE_LIMITS): Promise<GatewayDouble> {
  return gatewayDouble({ script: exampleScript, catalog: { [EXAMPLE_MODEL]: limits } })
}
