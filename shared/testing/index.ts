// `a2-aws/test`: helpers for testing an app built on a2-aws, in Node.
// - The step script every model double answers with: `text()`,
//   `reasoning()`, `toolCalls()` build a step's stream parts, a step may
//   also fail (`{ error, status, type }`) or hang until `release()`, and a
//   script is the steps in order or a function of the call
//   (`lastUserText(call)`).
// - `scriptedModel()`: the AI SDK's own test model (`MockLanguageModelV4`)
//   on a script, so an agent runs end to end with no provider.
// - `gatewayDouble()` / `bedrockDouble()`: local servers that speak AI
//   Gateway's and Amazon Bedrock's wire protocols, so the same script runs
//   through the real `@ai-sdk/gateway` and `@ai-sdk/amazon-bedrock`
//   providers (a model ID string, a `bedrock:` model ID) and A2's model
//   catalog client, with no network.
// - `v2Model()` / `unversionedProvider()`: providers on older AI SDK
//   specifications, which the SDK runs in a compatibility mode, to see what
//   an app's agent does with them.
// - `crashPoints()` / `expectCrashSafe()`: runs your agent's tools through a
//   scripted conversation, kills it at every crash point (each store write,
//   wake-up, timer, tool execute start and return, model stream read),
//   recovers on a fresh agent and checks the invariants (same transcript, no
//   lost event, no duplicate message, each effect in an `effectLedger()` as
//   often as without a crash), naming the point and invariant that broke.
// - `simulate()`: the whole runtime (several processes over one store, SQS
//   FIFO lane queues, timers, a scripted model) in a seeded world on
//   simulated time, with DynamoDB's, SQS's, the Scheduler's and the model's
//   faults and processes killed at any call, users playing random sessions,
//   browsers reading their streams through the client and reconnecting,
//   and the invariants checked once the world is quiet; a failure replays
//   from its seed (`replayCommand()`), `shrink()` makes it smaller and
//   `describeFailure()` prints its trace. `simulate({ seed, agent })` runs
//   your own agent (its tools, handlers, contract) in place of the
//   workload, your `effectLedger()`s checked once per logical call.
// - `describeEventStoreConformance()`: the suite every store of this package
//   passes, to run on your own `EventStore` (vitest; pass its
//   `describe`/`it`/`expect`, so importing this entry loads no test runner),
//   all of it or only some of its features.
// - `describeHarnessConformance()` / `scriptedSubject()`: the seed rules
//   every agent loop keeps (docs/harnesses.md), to run on a harness.
// - `laneSpec()`: a lane's behaviour as given/when/then cases (given these
//   events, when this wake-up, then these appends), each run by the lane's
//   real run over a fresh memory store, a wrong or missing append reported
//   event by event (`LaneSpecFailure`); `FakeSession` builds the history a
//   case starts from by the controller's own rounds, with no store.
// - `checkSessions()` / `checkSessionCompatibility()`: stored sessions
//   (`sessionFromExport()`, `storeSessions()`) checked against new code
//   before a deploy: upcast and validated by its contract, folded by its
//   reducers (against stored snapshots of the same name), their calls yet to
//   run against its tools; each session that would break reported with why
//   (`formatCompatibilityReport()`).

export {
  type CheckSessionsOptions,
  checkSessionCompatibility,
  checkSessions,
} from '../agent/compatibility/check-sessions.ts'
export type {
  CheckedAgent,
  CheckedContract,
  CheckedSession,
  NamedSnapshot,
} from '../agent/compatibility/checked-session.ts'
export type {
  CompatibilityFinding,
  CompatibilityFindingKind,
  CompatibilityReport,
  SessionCompatibility,
} from '../agent/compatibility/compatibility-report.ts'
export { formatCompatibilityReport } from '../agent/compatibility/format-report.ts'
export { sessionFromExport, storeSessions } from '../agent/compatibility/session-sources.ts'
export {
  type BedrockCall,
  type BedrockDouble,
  type BedrockDoubleCredentials,
  type BedrockDoubleOptions,
  bedrockDouble,
} from './bedrock-double.ts'
export type { ConverseContentBlock, ConverseRequest } from './converse-call.ts'
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
  type EventStoreConformanceOptions,
  type EventStoreFeature,
  type EventStoreHarness,
} from './event-store-conformance.ts'
export {
  type CatalogModel,
  type GatewayDouble,
  type GatewayDoubleOptions,
  gatewayDouble,
} from './gateway-double.ts'
export {
  describeHarnessConformance,
  gatewaySubject,
  type HarnessConformanceOptions,
  type HarnessSetUp,
  type HarnessSubject,
  type HarnessUnderTest,
  scriptedSubject,
} from './harness-conformance.ts'
export type { DeepPartial, ExpectedAppend } from './lane-spec/expected-appends.ts'
export {
  FakeSession,
  type FakeSessionOptions,
  type PushOutcome,
} from './lane-spec/fake-session.ts'
export {
  type GivenEvent,
  type LaneRun,
  type LaneSpec,
  type LaneSpecOptions,
  type LaneSpecThen,
  type LaneSpecWhen,
  laneSpec,
  type SpecWakeUp,
} from './lane-spec/lane-spec.ts'
export { LaneSpecFailure } from './lane-spec/lane-spec-failure.ts'
export {
  type UnversionedProvider,
  unversionedProvider,
  type V2Model,
  v2Model,
} from './legacy-provider.ts'
export {
  lastUserText,
  type ModelCall,
  reasoning,
  type Script,
  type Step,
  text,
  toolCalls,
} from './model-script.ts'
export { type ScriptedModel, scriptedModel } from './scripted-model.ts'
export {
  describeFailure,
  FAULT_KINDS,
  type FaultKind,
  replayCommand,
  type SessionFailure,
  type SimModelCall,
  type SimulatedAgent,
  type SimulatedAgentOptions,
  type SimulatedStore,
  type SimulationOptions,
  type SimulationReport,
  shrink,
  simulate,
  type TraceLine,
  TURN_KINDS,
  type TurnKind,
  USER_AGENT_TURN_KINDS,
} from './simulator/index.ts'
