import type { UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import {
  type LeftOut,
  wellFormedPrompt,
} from '../../../../shared/agent/model-step/well-formed-prompt.ts'
import { userMessage } from '../../../support/conversation.ts'

const answer: UIMessage = {
  id: 'r1',
  role: 'assistant',
  parts: [
    { type: 'step-start' },
    {
      type: 'tool-lookup',
      toolCallId: 'c1',
      state: 'output-available',
      input: { ticketId: 'T-1' },
      output: { status: 'open' },
    },
    { type: 'text', text: 'T-1 is open.', state: 'done' },
  ],
}

async function prompt(messages: unknown[]) {
  const leftOut: LeftOut[] = []
  const kept = await wellFormedPrompt(messages as UIMessage[], (left) => leftOut.push(left))
  return { kept, leftOut }
}

describe('wellFormedPrompt: the prompt as the AI SDK accepts it', () => {
  it('leaves out only the parts the SDK refuses, reporting their stored positions, and keeps the rest in order', async () => {
    const mixed = {
      id: 'u1',
      role: 'user',
      parts: [
        { type: 'txt', text: 'typo' },
        { type: 'text', text: 'keep me' },
        { type: 'file', url: 'https://x.test/a.pdf' },
        { type: 'data-ticket', data: { id: 'T-1' } },
      ],
    }
    const { kept, leftOut } = await prompt([mixed, answer, userMessage('u2', 'next')])
    expect(kept).toEqual([
      {
        ...mixed,
        parts: [
          { type: 'text', text: 'keep me' },
          { type: 'data-ticket', data: { id: 'T-1' } },
        ],
      },
      answer,
      userMessage('u2', 'next'),
    ])
    expect(leftOut).toEqual([
      { messageId: 'u1', part: 0, issue: expect.objectContaining({ path: ['parts', 0, 'type'] }) },
      {
        messageId: 'u1',
        part: 2,
        issue: expect.objectContaining({ path: ['parts', 2, 'mediaType'] }),
      },
    ])
  })

  it('leaves out a message with nothing left, and passes a prompt the SDK accepts as it is', async () => {
    const empty = { id: 'u1', role: 'user', parts: [{ type: 'text', text: 42 }] }
    const { kept, leftOut } = await prompt([empty, userMessage('u2', 'next')])
    expect(kept).toEqual([userMessage('u2', 'next')])
    expect(leftOut.map((left) => [left.messageId, left.part])).toEqual([['u1', 0]])

    const good = [userMessage('u1'), answer]
    expect(await prompt(good)).toEqual({ kept: good, leftOut: [] })
  })
})
