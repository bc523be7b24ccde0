// `a2-aws/cdk`: the A2Agent construct and the A2ChatPage next to it.

export { A2Agent, type A2AgentProps, LANES, type LaneName } from './a2-agent.ts'
export { A2ChatPage, type A2ChatPageProps } from './chat-page.ts'
