// `a2-aws/ai/server`: the agent API, for server code. What it is for:
// - `agent(options)`: the whole server (its `fetch`, `session(id)` and
//   `runtime`), with its option, context and session types;
// - `runWithHandlerContext(ctx, fn)`: runs a tool or handler outside the
//   runtime (in a test) with `handlerContext()` returning `ctx`;
// - `StepResultTooLargeError`, which `ctx.step()` throws for a result too
//   large to record;
// - the ports an agent's `dispatcher` and `scheduler` options take, and
//   `TimerConflictError`, which a scheduler throws for a timer set again at
//   another time;
// - `AGENT_METRICS`, the figures an agent's `metrics` option receives (and
//   the A2Agent construct's functions write to CloudWatch);
// - the `Harness` port and `HarnessAdapter`, what `agent({ harness })` takes
//   for a loop other than the AI SDK's: Pi's and FX's adapters are in
//   `a2-aws/harness/pi` and `a2-aws/harness/fx`, which this entry never
//   loads; write your own on the same port.
// Importing it loads no AWS SDK: the DynamoDB store and the other AWS
// adapters are in `a2-aws/aws`, the memory store and the log in `a2-aws`.

export type { VersionPolicy } from '../model/controller/version-pin.ts'
export { runWithHandlerContext } from '../runtime/handler-context-storage.ts'
export { TimerConflictError } from '../runtime/in-process-scheduler.ts'
export type { Lane } from '../runtime/lane-table.ts'
export type { Scheduler, Timer } from '../runtime/scheduler.ts'
export {
  localVersions,
  type RoutedRuntime,
  type VersionRoutes,
} from '../runtime/version-routes.ts'
export type { Dispatcher, WakeUp } from '../runtime/wake-up.ts'
export type { RetryPolicy } from '../timing/backoff.ts'
export type { Timers } from '../timing/timers.ts'
export type {
  Harness,
  HarnessApprovalDecision,
  HarnessApprovalRequest,
  HarnessApprovals,
  HarnessStep,
  HarnessStepContext,
} from './harness/harness.ts'
export {
  HarnessNotImportedError,
  HarnessUnavailableError,
  UnknownHarnessError,
} from './harness/harness-errors.ts'
export { StepResultTooLargeError } from './lanes/durable-steps.ts'
export type { ModelChoice, ResolvedModel } from './model-step/resolve-model.ts'
export type { AgentEraseReceipt, EraseOptions } from './session/erase-agent-session.ts'
export type { AgentSession, SessionOptions } from './session/session-api.ts'
export {
  type Agent,
  type AgentFetchOptions,
  type AgentRuntime,
  agent,
  type RunOptions,
} from './wiring/agent.ts'
export { AGENT_METRICS, type AgentMetric, type AgentMetrics } from './wiring/agent-metrics.ts'
export type {
  AgentOptions,
  AiSdkHarnessOptions,
  GenerateContext,
  GenerationSettings,
  HarnessAdapter,
  HarnessOptions,
  HarnessSettings,
  MessageMetadataContext,
  ResolverContext,
  ToolApprovalPolicy,
} from './wiring/agent-options.ts'
