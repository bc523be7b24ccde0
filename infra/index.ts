// `a2-aws/cdk`: the A2Agent construct and the A2ChatPage next to it.

export {
  A2Agent,
  type A2AgentProps,
  DEFAULT_STREAM_CONCURRENCY,
  DEFAULT_THROTTLE,
  type LaneName,
  type TimedFunction,
} from './a2-agent.ts'
export { A2ChatPage, type A2ChatPageProps } from './chat-page.ts'
