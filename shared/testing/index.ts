// `a2-aws/test`: helpers for testing an app built on a2-aws, in Node.
// - `scriptedModel()`: the AI SDK's own test model (`MockLanguageModelV4`)
//   answering each model call with the next step of a script (`text()`,
//   `toolCalls()`, errors, hanging steps), so an agent runs end to end with
//   no provider.
// - `describeEventStoreConformance()`: the suite every store of this package
//   passes, to run on your own `EventStore` (vitest; pass its
//   `describe`/`it`/`expect`, so importing this entry loads no test runner).

export {
  type ConformanceTestApi,
  describeEventStoreConformance,
  type EventStoreHarness,
} from './event-store-conformance.ts'
export { type ScriptedModel, type Step, scriptedModel, text, toolCalls } from './scripted-model.ts'
