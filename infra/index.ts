// `a2-aws/cdk`: the A2Agent construct.

export { A2Agent, type A2AgentProps, LANES, type LaneName } from './a2-agent.ts'
