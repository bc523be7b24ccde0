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

/**
 * A model for the example agent (`functions/example/support-agent.ts`), per
 * call, as a real one would answer: "close ticket T-42" calls `closeTicket`
 * (which needs approval), a tool result gets an answer that quotes it, A2's
 * summary request (compaction) gets `SUMMARY`, "take your time" streams a
 * few words and hangs (until stopped or released), and anything else is
 * echoed. Tool call IDs restart at `call_0` in every step,
 * as several providers' do.
 */
export function exampleScript(call: ModelCall): Step {
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
  if (/take your time/i.test(said)) {
    return {
      hang: true,
      parts: [
        { type: 'stream-start', warnings: [] },
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: 'Let me think about that' },
      ],
    }
  }
  return text(echo(said), { chunks: 3 })
}

/** A Gateway double that answers as `exampleScript()` and lists the example's model (with `limits`). */
export function exampleGateway(limits: CatalogModel = EXAMPLE_LIMITS): Promise<GatewayDouble> {
  return gatewayDouble({ script: exampleScript, catalog: { [EXAMPLE_MODEL]: limits } })
}
