import { describe, expect, it } from 'vitest'
import { judgeAnswer } from '../../../../functions/cli/verify/judge-answer.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'

let index = 0
const arrived = (at: number, type: string, payload: unknown = {}) => ({
  at,
  event: { id: `e${++index}`, type, payload, sessionId: 's', index, timestamp: at } as StoredEvent,
})

describe('the answer check: a message is answered over the API', () => {
  it("passes when the assistant's message completes, with the time to the first frame and to completion", () => {
    const result = judgeAnswer({
      postedAt: 1_000,
      timeoutMs: 120_000,
      events: [
        arrived(1_300, 'ai.control.requested'),
        arrived(2_000, 'ai.generation.progress'),
        arrived(3_500, 'ai.message.completed', { reason: 'finished' }),
      ],
    })
    expect(result).toEqual({
      status: 'PASS',
      detail: 'answered: first frame after 300 ms, completed after 2.5 s',
      figures: { frames: 3, firstFrameMs: 300, completedMs: 2_500 },
    })
  })

  it('fails with what the session says went wrong', () => {
    const judged = (...events: ReturnType<typeof arrived>[]) =>
      judgeAnswer({ postedAt: 0, timeoutMs: 1_000, events }).detail
    expect(
      judged(arrived(10, 'ai.control.decided', { outcome: 'rejected', reason: 'session-closed' })),
    ).toBe('the message was rejected (session-closed)')
    expect(
      judged(
        arrived(10, 'ai.generation.completed', { outcome: 'failed', error: 'Invalid API key' }),
      ),
    ).toBe('the model call failed: Invalid API key')
    expect(
      judged(
        arrived(10, 'ai.handler.dead-lettered', { lane: 'generation', error: 'boom', attempts: 5 }),
      ),
    ).toBe('a generation wake-up went to its dead-letter queue: boom')
  })

  it('fails saying what did not arrive', () => {
    expect(judgeAnswer({ postedAt: 0, timeoutMs: 120_000, events: [] }).detail).toMatch(
      /^no event arrived within 120\.0 s of the POST/,
    )
    expect(
      judgeAnswer({ postedAt: 0, timeoutMs: 120_000, events: [arrived(5, 'ai.control.requested')] })
        .detail,
    ).toMatch(
      /^no ai\.message\.completed within 120\.0 s \(1 events arrived, the last ai\.control\.requested\)/,
    )
    expect(
      judgeAnswer({
        postedAt: 0,
        timeoutMs: 120_000,
        events: [arrived(5, 'ai.control.requested')],
        endedAt: 8_000,
      }).detail,
    ).toBe('the stream ended 8.0 s after the POST, before the answer completed')
  })
})
