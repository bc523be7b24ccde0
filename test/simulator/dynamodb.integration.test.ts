import { describe, expect, it } from 'vitest'
import { describeFailure, simulate } from '../../shared/testing/simulator/index.ts'
import { dynamodbOnMoto } from './dynamodb-store.ts'

// A small sample of the simulator on the DynamoDB store over moto, its
// faults injected in the SDK client's middleware (dynamodb-store.ts): four
// short seeds, with processes killed, transaction conflicts, throttling past
// the SDK's retries, and timeouts after a committed write, answered (16) or
// retried by the SDK. Seed 14 once failed on the simulator itself: its
// dispatcher took a process's watermark from appends alone, not from reads
// as the real one does, so a tool result found landed after the SDK's retry
// was woken under an older wake-up's deduplication ID, and dropped.
// `npm run simulate -- --store dynamodb --seeds N` runs full-size seeds.
describe('the simulator on the DynamoDB store (moto), sampled', () => {
  it('four short seeds hold every invariant, with DynamoDB faults in the SDK', async () => {
    const dynamodb = await dynamodbOnMoto()
    try {
      const failures: string[] = []
      const struck = new Set<string>()
      for (const seed of [10, 12, 14, 16]) {
        const report = await simulate({ seed, store: dynamodb.store, sessions: 2, turns: 2 })
        if (report.failures.length > 0) failures.push(describeFailure(report, { traceLines: 40 }))
        for (const kind of Object.keys(report.figures.faults)) struck.add(kind)
      }
      expect(failures.join('\n\n')).toBe('')
      expect([...struck].filter((kind) => kind.startsWith('store.')).sort()).toEqual([
        'store.retried-after-commit',
        'store.throttled',
        'store.timeout-after-commit',
        'store.transaction-conflict',
      ])
      expect(struck.has('process.killed')).toBe(true)
    } finally {
      dynamodb.close()
    }
  }, 60_000)
})
