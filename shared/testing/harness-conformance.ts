import type { ConformanceTestApi } from './event-store-conformance.ts'
import { describeA2Tools } from './harness-conformance/a2-tools.ts'
import {
  type ConformanceKit,
  conformanceKit,
  type HarnessConformanceOptions,
  type HarnessSetUp,
  type HarnessSubject,
  type HarnessUnderTest,
} from './harness-conformance/conformance-kit.ts'
import { describeControls } from './harness-conformance/controls.ts'
import { describeDurableSequence } from './harness-conformance/durable-sequence.ts'
import { describeLoopTools } from './harness-conformance/loop-tools.ts'
import { describeRecovery } from './harness-conformance/recovery.ts'
import { describeSerialCalls } from './harness-conformance/serial-calls.ts'

export { gatewaySubject, scriptedSubject } from './harness-conformance/subjects.ts'
export type { HarnessConformanceOptions, HarnessSetUp, HarnessSubject, HarnessUnderTest }

/**
 * The suite's features, in the order they run: one file each in
 * `harness-conformance/`. Tools run in A2's tools lane or the loop's own,
 * as the subject's `a2Tools` says.
 */
const FEATURES: readonly ((kit: ConformanceKit, api: ConformanceTestApi) => void)[] = [
  describeDurableSequence,
  (kit, api) => (kit.subject.a2Tools ? describeA2Tools(kit, api) : describeLoopTools(kit, api)),
  describeControls,
  describeRecovery,
  describeSerialCalls,
]

/**
 * The seed rules every agent loop must keep, run against one harness: a
 * turn's durable sequence, tools as soon as their input is ready, approvals
 * answered a day later by another process, Stop at the frontier the user
 * saw, Steer at a step boundary, Pause now and Resume, retry of a failed
 * call, a step taken over from a process that died, and model calls of a
 * session that never overlap. Like the store suite, run it on your own
 * harness from a vitest file.
 *
 * @example
 * import { describe, expect, it } from 'vitest'
 * import { describeHarnessConformance, scriptedModel } from 'a2-aws/test'
 *
 * describeHarnessConformance('ai-sdk', {
 *   a2Tools: true,
 *   setUp(script) {
 *     const model = scriptedModel([...script])
 *     return { model: model.model, harness: { type: 'ai-sdk' }, calls: () => [], release: model.release }
 *   },
 * }, { describe, it, expect })
 */
export function describeHarnessConformance(
  name: string,
  subject: HarnessSubject,
  api: ConformanceTestApi,
  options: HarnessConformanceOptions = {},
): void {
  const kit = conformanceKit(subject, options)
  api.describe(`${name}: the harness contract`, () => {
    for (const describeFeature of FEATURES) describeFeature(kit, api)
  })
}
