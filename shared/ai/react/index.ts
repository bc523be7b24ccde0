// `a2-aws/ai/react`: the React hook over `a2-aws/ai/client`.

export type {
  AgentActions,
  AgentIndicator,
  AgentSnapshot,
  AgentStatus,
  PushResult,
} from '../client/index.ts'
export { type UseAgentResult, useAgent } from './use-agent.ts'
