import { readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai'
import { describe, expect, it } from 'vitest'
import { messageChunks } from '../../../shared/client/index.ts'

/** Feeds the chunks for each snapshot in turn through the AI SDK's own message reader. */
async function readBack(snapshots: UIMessage[]): Promise<UIMessage | undefined> {
  const chunks: UIMessageChunk[] = [{ type: 'start', messageId: 'r1' }]
  let shown: UIMessage | undefined
  for (const snapshot of snapshots) {
    chunks.push(...messageChunks(shown, snapshot))
    shown = snapshot
  }
  chunks.push({ type: 'finish' })
  let last: UIMessage | undefined
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })
  for await (const message of readUIMessageStream({ stream })) last = structuredClone(message)
  return last
}

const message = (parts: unknown[]): UIMessage =>
  ({ id: 'r1', role: 'assistant', parts }) as UIMessage

describe('messageChunks', () => {
  it('grows text by deltas and closes it', async () => {
    const final = message([
      { type: 'step-start' },
      { type: 'text', text: 'Hello there', state: 'done' },
    ])
    const read = await readBack([
      message([{ type: 'step-start' }, { type: 'text', text: 'Hel', state: 'streaming' }]),
      message([{ type: 'step-start' }, { type: 'text', text: 'Hello', state: 'streaming' }]),
      final,
    ])
    expect(read).toEqual(final)
  })

  it('rewinds the current step with reset-step when a superseded attempt is replaced', async () => {
    const first = message([
      { type: 'step-start' },
      { type: 'text', text: 'Done step.', state: 'done' },
      { type: 'step-start' },
      { type: 'text', text: 'A crashed attem', state: 'streaming' },
    ])
    const retried = message([
      { type: 'step-start' },
      { type: 'text', text: 'Done step.', state: 'done' },
      { type: 'step-start' },
      { type: 'text', text: 'The retry.', state: 'done' },
    ])
    expect(messageChunks(first, retried)[0]).toEqual({ type: 'reset-step' })
    expect(await readBack([first, retried])).toEqual(retried)
  })

  it('moves a tool part through approval to its output', async () => {
    const tool = { type: 'tool-closeTicket', toolCallId: 'c1', input: { ticketId: 'T-9' } }
    const final = message([
      { type: 'step-start' },
      {
        ...tool,
        state: 'output-available',
        output: { closed: true },
        approval: { id: 'a1', approved: true },
      },
    ])
    const read = await readBack([
      message([{ type: 'step-start' }, { ...tool, state: 'input-available' }]),
      message([
        { type: 'step-start' },
        { ...tool, state: 'approval-requested', approval: { id: 'a1' } },
      ]),
      message([
        { type: 'step-start' },
        { ...tool, state: 'approval-responded', approval: { id: 'a1', approved: true } },
      ]),
      final,
    ])
    expect(read?.parts[1]).toMatchObject({
      state: 'output-available',
      output: { closed: true },
      approval: { id: 'a1', approved: true },
    })
  })
})
