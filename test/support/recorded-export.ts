import { tool } from 'ai'
import { z } from 'zod'
import { agent } from '../../shared/agent/index.ts'
import { inputs } from '../../shared/ai.ts'
import { memoryEventStore } from '../../shared/index.ts'
import { scriptedModel, text, toolCalls } from '../../shared/testing/scripted-model.ts'
import { userMessage } from './conversation.ts'

/** The support agent's tools as the recorded sessions call them. */
export const supportTools = {
  lookup: tool({
    description: 'Look a ticket up',
    inputSchema: z.object({ ticketId: z.string() }),
    execute: async ({ ticketId }) => ({ ticketId, status: 'open' }),
  }),
}

/**
 * An export of a realistic session, recorded by a real agent: three turns,
 * the first calling a tool, answers streamed in chunks. The template the
 * compatibility check's speed is measured on, copied under many session IDs.
 */
export async function recordedExport(sessionId = 'template'): Promise<string> {
  const script = scriptedModel([
    toolCalls({ toolCallId: 'c1', toolName: 'lookup', input: { ticketId: 'T-1' } }),
    text('T-1 is open; an engineer has it and will answer within the day.', { chunks: 12 }),
    text('It was opened on Monday by the billing team, about an invoice.', { chunks: 12 }),
    text('You are welcome. Anything else, just ask.', { chunks: 8 }),
  ])
  const a = agent({
    name: 'support',
    model: script.model,
    store: memoryEventStore(),
    tools: supportTools,
  })
  try {
    const questions = ['Status of T-1?', 'When was it opened?', 'Thanks']
    for (const [n, question] of questions.entries()) {
      await a.session(sessionId).append(...inputs.message(userMessage(`m${n + 1}`, question)))
      await a.runtime.idle()
    }
    return await a.session(sessionId).export()
  } finally {
    a.runtime.close()
  }
}

/** The template's export under another session ID, as `a2-aws export` would write that session. */
export function exportCopy(template: string, from: string, to: string): string {
  return template.replaceAll(`"sessionId":"${from}"`, `"sessionId":"${to}"`)
}

/** The export cut after its first `ai.tool.called`: a call recorded and not yet run. */
export function calledNotRun(jsonl: string): string {
  const [header, ...events] = jsonl.trimEnd().split('\n')
  const called = events.findIndex((line) => JSON.parse(line).type === 'ai.tool.called')
  const kept = events.slice(0, called + 1)
  const head = { ...JSON.parse(header as string), events: kept.length }
  return `${[JSON.stringify(head), ...kept].join('\n')}\n`
}
