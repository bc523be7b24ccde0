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
import { describeLives } from './event-store-conformance/lives.ts'
import { describeReadAndTail } from './event-store-conformance/read-and-tail.ts'
import { describeSizeLimits } from './event-store-conformance/size-limits.ts'
import { describeSnapshots } from './event-store-conformance/snapshots.ts'

export type { ConformanceTestApi, EventStoreHarness }

/** The suite's features, in the order they run: one file each in `event-store-conformance/`. */
const FEATURES = {
  append: describeAppend,
  eventIds: describeEventIds,
  size: describeSizeLimits,
  readAndTail: describeReadAndTail,
  snapshots: describeSnapshots,
  cursors: describeCursors,
  claims: describeClaims,
  erase: describeErase,
  lives: describeLives,
  eventLog: describeEventLog,
} satisfies Record<string, (harness: () => EventStoreHarness, api: ConformanceTestApi) => void>

/** A feature of the event store contract, which a store can be checked for on its own. */
export type EventStoreFeature = keyof typeof FEATURES

export interface EventStoreConformanceOptions {
  /**
   * Only these features (a store that does not implement the rest yet).
   * Every feature when left out, as every store of this package runs it.
   */
  features?: readonly EventStoreFeature[]
}

/**
 * One suite, every store: what the event log promises, checked against the
 * real component (the DynamoDB store runs it on an AWS-compatible endpoint).
 * Run it on your own `EventStore` from a vitest file; `harness` is called
 * once per test. With `features`, only those run.
 *
 * @example
 * import { describe, expect, it } from 'vitest'
 * import { describeEventStoreConformance } from 'a2-aws/test'
 *
 * describeEventStoreConformance('my store', () => ({ store: myStore(), corruptSnapshot }), { describe, it, expect })
 * describeEventStoreConformance('my log-only store', harness, { describe, it, expect }, { features: ['append', 'readAndTail'] })
 */
export function describeEventStoreConformance(
  name: string,
  harness: () => EventStoreHarness,
  api: ConformanceTestApi,
  { features = Object.keys(FEATURES) as EventStoreFeature[] }: EventStoreConformanceOptions = {},
): void {
  const unknown = features.filter((feature) => !Object.hasOwn(FEATURES, feature))
  if (features.length === 0 || unknown.length > 0) {
    throw new TypeError(
      `describeEventStoreConformance: ${unknown.length > 0 ? `no feature ${unknown.join(', ')}` : 'no features named'} (the features: ${Object.keys(FEATURES).join(', ')})`,
    )
  }
  api.describe(`${name}: the event store contract`, () => {
    for (const [feature, describeFeature] of Object.entries(FEATURES)) {
      if (features.includes(feature as EventStoreFeature)) describeFeature(harness, api)
    }
  })
}
