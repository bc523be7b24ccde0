// `a2-aws/harness/pi`: Pi's loop (`@mariozechner/pi-agent-core`) for
// `agent({ harness: piHarness({ ... }) })`, with the types of its options and
// tools. An entry of its own, so an agent on another loop never loads it;
// Pi's packages are optional peers, loaded on the first Pi step.

export { piHarness } from './pi-harness.ts'
export type {
  PiContent,
  PiHarnessOptions,
  PiMessage,
  PiTool,
  PiToolResult,
} from './pi-harness-options.ts'
