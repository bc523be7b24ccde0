import { describe, it } from 'vitest'
import { expectSeedsPass } from './seed-range.ts'

describe('the simulator, seeds 101 to 200', () => {
  it('every session of every run quiesces with every invariant holding', async () => {
    await expectSeedsPass(101, 200)
  }, 120_000)
})
