import { describe, expect, it } from 'vitest'
import { describeFailure, simulate } from '../../shared/testing/simulator/index.ts'
import { dynamodbOnMoto } from './dynamodb-store.ts'

// A small sample of the simulator on the DynamoDB store over moto, its
// faults injected in the SDK client's middleware (dynamodb-store.ts): short
// seeds, from 10 on, until every store fault has struck (processes killed,
// transaction conflicts, throttling past the SDK's retries, timeouts after a
// committed write, answered or retried by the SDK), at most 12 of them.
// Which faults a seed strikes follows the calls the code makes, so a fixed
// list went stale with each change. Seed 14 once failed on the simulator
// itself: its dispatcher took a process's watermark from appends alone, not
// from reads as the real one does, so a tool result found landed after the
// SDK's retry was woken under an older wake-up's deduplication ID, and
// dropped. `npm run simulate -- --store dynamodb --seeds N` runs full-size seeds.
const STORE_FAULTS = [
  'store.retried-after-commit',
  'store.throttled',
  'store.timeout-after-commit',
  'store.transaction-conflict',
]

describe('the simulator on the DynamoDB store (moto), sampled', () => {
  it('short seeds hold every invariant, with every DynamoDB fault in the SDK', async () => {
    const dynamodb = await dynamodbOnMoto()
    try {
      const failures: string[] = []
      const struck = new Set<string>()
      const covered = () =>
        STORE_FAULTS.every((kind) => struck.has(kind)) && struck.has('process.killed')
      for (let seed = 10; seed < 22 && !covered(); seed++) {
        const report = await simulate({ seed, store: dynamodb.store, sessions: 2, turns: 2 })
        if (report.failures.length > 0) failures.push(describeFailure(report, { traceLines: 40 }))
        for (const kind of Object.keys(report.figures.faults)) struck.add(kind)
      }
      expect(failures.join('\n\n')).toBe('')
      expect([...struck].filter((kind) => kind.startsWith('store.')).sort()).toEqual(STORE_FAULTS)
      expect(struck.has('process.killed')).toBe(true)
    } finally {
      dynamodb.close()
    }
  }, 90_000)
})
