import { describe, expect, it } from 'vitest'
import { parseTimerMessage, timerMessageBody } from '../../../shared/aws/timer-message.ts'

const timer = {
  sessionId: 's1',
  name: 'reminder',
  at: 1_700_000_000_000,
  events: [{ id: 'a2.ai:timer:reminder:0', type: 'app.note', payload: { text: 'hi' } }],
}
const body = (change: Record<string, unknown>) =>
  JSON.stringify({ ...JSON.parse(timerMessageBody(timer)), ...change })

describe('timer messages', () => {
  it('round-trip through parseTimerMessage', () => {
    expect(parseTimerMessage(timerMessageBody(timer))).toEqual(timer)
    const setIn = { firstId: 'm1', firstAt: 1_699_999_000_000 }
    expect(parseTimerMessage(timerMessageBody({ ...timer, setIn }))).toEqual({ ...timer, setIn })
  })

  it.each([
    ['not json', 'not json', 'the body is not JSON'],
    ['a string', '"a2.timer"', 'the body is not an object'],
    ['another kind', body({ kind: 'a2.wake' }), '"kind" is "a2.wake", not "a2.timer"'],
    ['no session', body({ sessionId: '' }), '"sessionId" must be a non-empty string'],
    ['no name', body({ name: 3 }), '"name" must be a non-empty string'],
    ['a date string', body({ at: '2026-01-01' }), '"at" must be epoch milliseconds'],
    ['no events', body({ events: [] }), '"events" must be a non-empty array'],
    [
      'an event with no ID',
      body({ events: [{ type: 't', payload: 1 }] }),
      'events[0].id must be a string',
    ],
    ['an event that is not an object', body({ events: [null] }), 'events[0] is not an object'],
    ['a log mark that is not one', body({ setIn: true }), '"setIn" must be { firstId, firstAt }'],
  ])('refuses %s with MALFORMED_TIMER_MESSAGE, saying what is wrong', (_, text, why) => {
    expect(() => parseTimerMessage(text)).toThrow(
      expect.objectContaining({
        code: 'MALFORMED_TIMER_MESSAGE',
        message: `Not a timer message: ${why}`,
      }),
    )
  })
})
