import { describe, expect, it } from 'vitest'
import { inputs } from '../../../shared/ai.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { textOf, until, userMessage } from '../../support/agent-log.ts'
import { pipelineForSuite } from '../../support/pipeline.ts'

// A session's lives through the pipeline (issue 37, case 3): a life started
// over within SQS FIFO's five-minute deduplication window writes the same
// indices as the life before it. Its wake-ups were deduplicated by
// (session, lane, key, index), so SQS dropped the new life's first ones as
// copies of the old life's, the stream router's copies too, and its first
// message was never answered. Nothing here reads the stream: no reader's
// recovery may hide a dropped wake-up.

const script = scriptedModel([text('Your first answer.'), text('Your answer, started over.')])
const suite = pipelineForSuite({ name: 'lives', model: script.model })

describe('a session erased and started over through the pipeline', () => {
  it("answers the new life's first message, whose wake-ups repeat the old life's indices", async () => {
    const session = suite().agent.session('restarted')
    const answered = (reply: string) =>
      until(async () => {
        const { state } = await session.state()
        return state.active === null && textOf(state.messages.at(-1)) === reply && state
      }, 30_000)
    await session.append(...inputs.message(userMessage('first', 'Hello')))
    await answered('Your first answer.')
    await session.erase()
    // Within seconds: the same indices, in a new life.
    await session.append(...inputs.message(userMessage('again', 'Hello again')))
    const { messages } = await answered('Your answer, started over.')
    expect(messages.map((message) => message.id)).toEqual(['again', expect.any(String)])
  }, 60_000)
})
