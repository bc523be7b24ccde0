import { describe, expect, it } from 'vitest'
import { PipelineError } from '../../../shared/aws/errors.ts'
import { parseWakeUpMessage, wakeUpMessage } from '../../../shared/aws/wake-up-message.ts'
import { SERIAL_TOOL_KEY } from '../../../shared/model/ids/claim-keys.ts'
import { LANE_NAMES } from '../../../shared/runtime/lane-table.ts'

describe('wake-up messages', () => {
  it("group a session's lane work by session, and keyed tool runs by session and tool call", () => {
    expect(wakeUpMessage({ sessionId: 's1', lane: 'admission' }).groupId).toBe('s1')
    expect(wakeUpMessage({ sessionId: 's1', lane: 'tools', key: 'call-1' }).groupId).toBe(
      's1/call-1',
    )
    expect(wakeUpMessage({ sessionId: 's1', lane: 'tools' }).groupId).toBe('s1')
  })

  it("put every tool run of an agent with toolLane 'tools' in one group: they share one key", () => {
    const message = wakeUpMessage({ sessionId: 's1', lane: 'tools', key: SERIAL_TOOL_KEY })
    expect(message.groupId).toBe(`s1/${SERIAL_TOOL_KEY}`)
    expect(JSON.parse(message.body)).toEqual({
      sessionId: 's1',
      lane: 'tools',
      key: SERIAL_TOOL_KEY,
    })
  })

  it('give the same wake-up for the same news (life and index) the same deduplication ID, and other news another', () => {
    const at = (index: number, life = 'L1') => ({ at: { life, index } })
    const at7 = wakeUpMessage({ sessionId: 's1', lane: 'generation', ...at(7) })
    expect(wakeUpMessage({ sessionId: 's1', lane: 'generation', ...at(7) }).deduplicationId).toBe(
      at7.deduplicationId,
    )
    expect(
      wakeUpMessage({ sessionId: 's1', lane: 'generation', ...at(8) }).deduplicationId,
    ).not.toBe(at7.deduplicationId)
    // The same index in a life started over after an erase is other news.
    expect(
      wakeUpMessage({ sessionId: 's1', lane: 'generation', ...at(7, 'L2') }).deduplicationId,
    ).not.toBe(at7.deduplicationId)
    expect(
      wakeUpMessage({ sessionId: 's1', lane: 'admission', ...at(7) }).deduplicationId,
    ).not.toBe(at7.deduplicationId)
    expect(at7.deduplicationId).toMatch(/^[0-9a-f]{64}$/)
  })

  it('never collapse wake-ups whose news is unknown', () => {
    const first = wakeUpMessage({ sessionId: 's1', lane: 'admission' })
    expect(wakeUpMessage({ sessionId: 's1', lane: 'admission' }).deduplicationId).not.toBe(
      first.deduplicationId,
    )
  })

  it('hash session IDs SQS would refuse as a group ID (non-ASCII, too long)', () => {
    expect(wakeUpMessage({ sessionId: 'séance', lane: 'admission' }).groupId).toMatch(
      /^#[0-9a-f]{64}$/,
    )
    expect(wakeUpMessage({ sessionId: 'x'.repeat(200), lane: 'admission' }).groupId).toHaveLength(
      65,
    )
  })

  it('carry every lane the runtime routes to, the metadata lane on the handlers queue', () => {
    for (const lane of LANE_NAMES) {
      const message = wakeUpMessage({ sessionId: 's1', lane, at: { life: 'L1', index: 3 } })
      expect(parseWakeUpMessage(message.body)).toEqual({ sessionId: 's1', lane })
    }
    const metadata = wakeUpMessage({
      sessionId: 's1',
      lane: 'metadata',
      at: { life: 'L1', index: 3 },
    })
    expect(metadata.lane).toBe('handlers')
    expect(metadata.deduplicationId).not.toBe(
      wakeUpMessage({ sessionId: 's1', lane: 'handlers', at: { life: 'L1', index: 3 } })
        .deduplicationId,
    )
  })

  it('round-trip through parseWakeUpMessage', () => {
    const { body } = wakeUpMessage({ sessionId: 's1', lane: 'tools', key: 'k' })
    expect(parseWakeUpMessage(body)).toEqual({ sessionId: 's1', lane: 'tools', key: 'k' })
  })

  it.each([
    ['not json', 'must be JSON'],
    ['[]', 'JSON object'],
    ['{"lane":"admission"}', '"sessionId"'],
    ['{"sessionId":"s","lane":"nope"}', 'Unknown lane "nope"'],
    ['{"sessionId":"s","lane":"tools","key":3}', '"key"'],
  ])('refuse %s with a MALFORMED_WAKE_UP error', (body, message) => {
    const error = captured(() => parseWakeUpMessage(body))
    expect(error).toBeInstanceOf(PipelineError)
    expect((error as PipelineError).code).toBe('MALFORMED_WAKE_UP')
    expect((error as Error).message).toContain(message)
  })
})

function captured(run: () => unknown): unknown {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}
