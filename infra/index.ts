// `a2-aws/cdk`: the CDK constructs (needs the optional peers `aws-cdk-lib`,
// `constructs` and `esbuild`): `A2Agent`, an agent module deployed as the
// whole pipeline (table, queues, Lambda functions, API, timers), and
// `A2ChatPage`, a built chat page on CloudFront, same-origin with its API.
// Synthesizing loads no AWS SDK client.

export { A2Agent, type A2AgentProps, type LaneName, type TimedFunction } from './a2-agent.ts'
export type { A2AgentAlarmsProps } from './a2-agent-monitoring.ts'
export type { A2AgentAuth } from './api-auth.ts'
export { type BedrockModel, INFERENCE_PROFILE_REGIONS } from './bedrock-grants.ts'
export { A2ChatPage, type A2ChatPageProps } from './chat-page.ts'
export type { AgentFunctionName, AgentSecret, SecretSource } from './secrets.ts'
