import { describe, expect, it } from 'vitest'
import { simulate } from '../../shared/testing/simulator/index.ts'
import { digestsInProcess, mismatches } from './replay-digests.ts'

// npm test's sample of exact replay; `npm run simulate:replay` runs 1,000
// seeds the same way.
describe('the simulator replays a seed exactly, in any process, under any load', () => {
  it('seeds run in two processes at once (one collecting garbage at other moments), here after other tests, and alone have one digest each', async () => {
    // A sample for npm test's time (`npm run simulate:replay` runs 1,000
    // seeds in several processes).
    const seeds = 6
    // Started together, with this thread's own runs below: three runs at once on the cores.
    const inProcesses = Promise.all([
      // Every seed after the ones before it, in one thread.
      digestsInProcess({ count: seeds }),
      // The same, with every collection a full one (V8's --gc-global).
      digestsInProcess({ count: seeds, nodeOptions: ['--gc-global'] }),
      // The last seed alone in its process.
      digestsInProcess({ seed: seeds }),
    ])
    // And here, after whatever this worker ran before.
    const here = new Map<number, string>()
    for (let seed = 1; seed <= seeds; seed++) {
      const report = await simulate({ seed })
      here.set(seed, `${seed} ${report.digest} ${report.figures.steps} ${report.figures.events}`)
    }
    const [inOneThread, underGc, alone] = await inProcesses
    expect(inOneThread.size).toBe(seeds)
    expect(mismatches(inOneThread, underGc)).toEqual([])
    expect(mismatches(inOneThread, here)).toEqual([])
    expect(alone.get(seeds)).toBe(inOneThread.get(seeds))
  }, 60_000)
})
