import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import type { NewEvent } from '../../../shared/index.ts'
import { scriptedModel, text, toolCalls } from '../../../shared/testing/scripted-model.ts'
import { textOf, track, userMessage } from '../../support/agent-log.ts'

// "Loses nothing already stored": logs written before appends were checked
// may hold messages the AI SDK refuses. They go into the store as they were
// written then, past the log's check.
const STORED = [
  { id: 'b1', role: 'user', parts: [{ type: 'txt', text: 'typo' }] },
  { id: 'b2', role: 'user', parts: [{ type: 'text', text: 42 }] },
  {
    id: 'b3',
    role: 'user',
    parts: [{ type: 'text', text: 'see the file' }, { type: 'file' }],
  },
]

const storedBefore = (id: string, message: unknown): NewEvent => ({
  id,
  type: 'ai.control.requested',
  payload: { action: 'message', generate: false, message },
})

function quietLogger() {
  const warnings: string[] = []
  return {
    warnings,
    logger: { info() {}, error() {}, warn: (line: string) => warnings.push(line) },
  }
}

/** The text of each message the model was given, by role. */
function promptTexts(prompt: readonly { role: string; content: unknown }[]): string[] {
  return prompt
    .filter((message) => message.role === 'user')
    .map((message) =>
      (message.content as { type: string; text?: unknown }[])
        .map((part) => (part.type === 'text' ? String(part.text) : `[${part.type}]`))
        .join(' '),
    )
}

describe('a log that already holds messages the AI SDK refuses', () => {
  it('still folds, keeps them, and answers: the prompt leaves out the refused parts, and the logger says so', async () => {
    const script = scriptedModel([text('answered')])
    const { warnings, logger } = quietLogger()
    const a = track(agent({ name: 'legacy', model: script.model, logger }))
    await a.runtime.store.append(
      's1',
      STORED.map((message) => storedBefore(message.id, message)),
    )
    await a.session('s1').append(...inputs.message(userMessage('good', 'And now?')))
    await a.runtime.idle()

    const { state } = await a.session('s1').state()
    expect(state.active?.phase).not.toBe('failed')
    expect(textOf(state.messages.at(-1))).toBe('answered')
    // The state keeps every stored message as it was written.
    expect(state.messages.slice(0, 3)).toEqual(STORED)
    const [call] = script.calls
    expect(promptTexts(call?.prompt ?? [])).toEqual(['see the file', 'And now?'])
    expect(warnings).toEqual([
      expect.stringMatching(
        /^a2: session s1: part 0 of "b1" left out of the prompt .*parts\.0\.type/,
      ),
      expect.stringMatching(/part 0 of "b2" left out .*parts\.0\.text/),
      expect.stringMatching(/part 1 of "b3" left out .*parts\.1\.mediaType/),
    ])
  })

  it("a tool's run in such a session gets its prompt too, and its result reaches the model", async () => {
    const script = scriptedModel([
      toolCalls({ toolCallId: 'c1', toolName: 'lookup', input: { ticketId: 'T-1' } }),
      text('T-1 is open.'),
    ])
    const seen: number[] = []
    const lookup = tool({
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }, { messages }) => {
        seen.push(messages.length)
        return { ticketId, status: 'open' }
      },
    })
    const a = track(
      agent({
        name: 'legacy-tools',
        model: script.model,
        tools: { lookup },
        logger: quietLogger().logger,
      }),
    )
    await a.runtime.store.append('s1', [storedBefore('b3', STORED[2])])
    await a.session('s1').append(...inputs.message(userMessage('good', 'Status of T-1?')))
    await a.runtime.idle()
    const { state } = await a.session('s1').state()
    expect(textOf(state.messages.at(-1))).toBe('T-1 is open.')
    expect(seen.length).toBe(1)
  })
})
