import { describe, expect, it } from 'vitest'
import { describeFailure, simulate } from '../../shared/testing/simulator/index.ts'
import { dynamodbOnMoto } from './dynamodb-store.ts'

// A small sample of the simulator on the DynamoDB store over moto, its
// faults injected in the SDK client's middleware (dynamodb-store.ts): two
// short seeds, one with processes killed and transaction conflicts, one with
// throttling past the SDK's retries and timeouts after a committed write.
// `npm run simulate -- --store dynamodb --seeds N` runs full-size seeds.
describe('the simulator on the DynamoDB store (moto), sampled', () => {
  it('two short seeds hold every invariant, with DynamoDB faults in the SDK', async () => {
    const dynamodb = await dynamodbOnMoto()
    try {
      const failures: string[] = []
      const struck = new Set<string>()
      for (const seed of [1, 8]) {
        const report = await simulate({ seed, store: dynamodb.store, sessions: 2, turns: 2 })
        if (report.failures.length > 0) failures.push(describeFailure(report, { traceLines: 40 }))
        for (const kind of Object.keys(report.figures.faults)) struck.add(kind)
      }
      expect(failures.join('\n\n')).toBe('')
      expect([...struck].filter((kind) => kind.startsWith('store.')).sort()).toEqual([
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
