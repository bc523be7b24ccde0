// The agent module the repo's CDK app deploys (`infra/app.ts`): the example
// support agent (`functions/example/support-agent.ts`) with the AWS store,
// dispatcher and scheduler the A2Agent construct configures. Your own agent
// module looks the same: export the value agent() returns.

import { agent } from '../shared/agent/index.ts'
import { awsAgentParts } from '../shared/aws/agent-environment.ts'
import { gatewaySettings } from './example/gateway-origin.ts'
import { supportAgentOptions } from './example/support-agent.ts'

// With A2_GATEWAY_URL, model ID strings go to that AI Gateway: the AI SDK's
// default provider is process-wide, so the module that owns the process
// (this one, on Lambda and in `npm run local`) sets it, not the library.
const gateway = gatewaySettings(process.env)
if (gateway) globalThis.AI_SDK_DEFAULT_PROVIDER = gateway.provider
const { online: _online, ...options } = supportAgentOptions(process.env)
const aws = awsAgentParts()

export default agent({
  ...options,
  store: aws.store,
  dispatcher: aws.dispatcher,
  scheduler: aws.scheduler,
})
