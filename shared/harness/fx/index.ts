// `a2-aws/harness/fx`: FX's loop, or any Agent Client Protocol agent, for
// `agent({ harness: fxHarness({ ... }) })`, with the type of its options. An
// entry of its own, so an agent on another loop never loads it (it starts the
// agent's processes with `node:child_process`); `@agentclientprotocol/sdk`
// is an optional peer, loaded on the first FX step.

export { fxHarness } from './fx-harness.ts'
export type { FxHarnessOptions } from './fx-harness-options.ts'
