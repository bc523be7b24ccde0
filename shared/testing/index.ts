// `a2-aws/test`: helpers for testing an app built on a2-aws, in Node.
// - `scriptedModel()`: the AI SDK's own test model (`MockLanguageModelV4`)
//   answering each model call with the next step of a script (`text()`,
//   `toolCalls()`, errors, hanging steps), so an agent runs end to end with
//   no provider.
// - `crashPoints()` / `expectCrashSafe()`: runs your agent's tools through a
//   scripted conversation, kills it at every crash point (each store write,
//   wake-up, timer, tool execute start and return, model stream read),
//   recovers on a fresh agent and checks the invariants (same transcript, no
//   lost event, no duplicate message, each effect in an `effectLedger()` as
//   often as without a crash), naming the point and invariant that broke.
// - `describeEventStoreConformance()`: the suite every store of this package
//   passes, to run on your own `EventStore` (vitest; pass its
//   `describe`/`it`/`expect`, so importing this entry loads no test runner).

export {
  type CrashFailure,
  type CrashPointsOptions,
  type CrashPointsReport,
  crashPoints,
  expectCrashSafe,
} from './crash-points.ts'
export { CrashError } from './crash-ports.ts'
export {
  type ConversationAction,
  type CrashTestAgent,
  type EffectLedger,
  effectLedger,
} from './crash-run.ts'
export {
  type ConformanceTestApi,
  describeEventStoreConformance,
  type EventStoreHarness,
} from './event-store-conformance.ts'
export { type ScriptedModel, type Step, scriptedModel, text, toolCalls } from './scripted-model.ts'
