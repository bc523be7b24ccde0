import { describe, expect, it } from 'vitest'
import { failureDetail, failureWords } from '../../../../functions/example/web/failure-words.ts'
import { LANE_NAMES } from '../../../../shared/runtime/lane-table.ts'

const letter = (lane: string) => ({ lane, key: 'k-1', error: 'ECONNRESET', attempts: 5, index: 9 })

describe("the chat page's words for a dead letter", () => {
  it('has words of its own for every lane the runtime has, without its terms', () => {
    for (const lane of LANE_NAMES) {
      const words = failureWords(letter(lane))
      expect(words).not.toBe(failureWords(letter('a lane from a newer runtime')))
      expect(words).not.toMatch(/lane|metadata|generation|admission|handler|ECONNRESET|k-1/i)
    }
  })

  it('keeps the lane, key, attempts, error and index for the inspector', () => {
    expect(failureDetail(letter('tools'))).toBe('#9 tools lane (k-1) after 5 attempts: ECONNRESET')
    expect(failureDetail({ ...letter('metadata'), key: undefined, attempts: 1 })).toBe(
      '#9 metadata lane after 1 attempt: ECONNRESET',
    )
  })
})
