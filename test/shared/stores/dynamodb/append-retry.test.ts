import { describe, expect, it } from 'vitest'
import { appendRetryDelay } from '../../../../shared/stores/dynamodb/append-retry.ts'

describe('appendRetryDelay()', () => {
  const most = () => 1

  it('waits a random share of a window of round trips that doubles with each lost race', () => {
    expect(appendRetryDelay(1, 40, most)).toBe(40)
    expect(appendRetryDelay(2, 40, most)).toBe(80)
    expect(appendRetryDelay(4, 40, most)).toBe(320)
    expect(appendRetryDelay(4, 40, () => 0.25)).toBe(80)
    expect(appendRetryDelay(4, 40, () => 0)).toBe(0)
  })

  it('keeps a floor under a fast store and a cap over a slow one', () => {
    expect(appendRetryDelay(1, 1, most)).toBe(10)
    expect(appendRetryDelay(30, 40, most)).toBe(2_000)
    expect(appendRetryDelay(1, 60_000, most)).toBe(2_000)
  })
})
