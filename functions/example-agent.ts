// The agent module the repo's CDK app deploys (`infra/app.ts`): the example
// support agent (`functions/example/support-agent.ts`) with the AWS store,
// dispatcher and scheduler the A2Agent construct configures. Your own agent
// module looks the same: export the value agent() returns.

import { agent } from '../shared/ai/server/index.ts'
import { awsAgentParts } from '../shared/aws/agent-environment.ts'
import { supportAgentOptions } from './example/support-agent.ts'

const { online: _online, ...options } = supportAgentOptions(process.env)
const aws = awsAgentParts()

export default agent({
  ...options,
  store: aws.store,
  dispatcher: aws.dispatcher,
  scheduler: aws.scheduler,
})
