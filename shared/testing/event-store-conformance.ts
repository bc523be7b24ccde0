import { describeAppend } from './event-store-conformance/append.ts'
import { describeClaims } from './event-store-conformance/claims.ts'
import type {
  ConformanceTestApi,
  EventStoreHarness,
} from './event-store-conformance/conformance-kit.ts'
import { describeCursors } from './event-store-conformance/cursors.ts'
import { describeErase } from './event-store-conformance/erase.ts'
import { describeEventIds } from './event-store-conformance/event-ids.ts'
import { describeEventLog } from './event-store-conformance/event-log.ts'
import { describeReadAndTail } from './event-store-conformance/read-and-tail.ts'
import { describeSizeLimits } from './event-store-conformance/size-limits.ts'
import { describeSnapshots } from './event-store-conformance/snapshots.ts'

export type { ConformanceTestApi, EventStoreHarness }

/**
 * One suite, every store: what the event log promises, checked against the
 * real component (the DynamoDB store runs it on an AWS-compatible endpoint).
 * Run it on your own `EventStore` from a vitest file; `harness` is called
 * once per test. It runs one suite per feature, each in its own file in
 * `event-store-conformance/`.
 *
 * @example
 * import { describe, expect, it } from 'vitest'
 * import { describeEventStoreConformance } from 'a2-aws/test'
 *
 * describeEventStoreConformance('my store', () => ({ store: myStore(), corruptSnapshot }), { describe, it, expect })
 */
export function describeEventStoreConformance(
  name: string,
  harness: () => EventStoreHarness,
  api: ConformanceTestApi,
): void {
  api.describe(`${name}: the event store contract`, () => {
    describeAppend(harness, api)
    describeEventIds(harness, api)
    describeSizeLimits(harness, api)
    describeReadAndTail(harness, api)
    describeSnapshots(harness, api)
    describeCursors(harness, api)
    describeClaims(harness, api)
    describeErase(harness, api)
    describeEventLog(harness, api)
  })
}
