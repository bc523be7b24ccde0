// `a2-aws/ai/react`: `useAgent()`, the React hook over `a2-aws/ai/client`
// (one session object and one stream per route and session, shared by the
// components that name them), and the types of what it returns.

export type {
  AgentActions,
  AgentIndicator,
  AgentSnapshot,
  AgentStage,
  AgentStatus,
  PushResult,
} from '../client/index.ts'
export { type UseAgentResult, useAgent } from './use-agent.ts'
