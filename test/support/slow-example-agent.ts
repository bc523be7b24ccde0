// The example agent module (functions/example-agent.ts) with a slower
// offline demo model, for the test that stops `npm run local` mid-answer
// (test/functions/local/runner/local-pipeline-restart.integration.test.ts):
// the example's options as the runner sets them (A2_CLAIM_TTL_MS among
// them) and the AWS parts of the environment, so the answer streams long
// enough to be cut.
import { supportAgentOptions } from '../../functions/example/support-agent.ts'
import { agent } from '../../shared/agent/index.ts'
import { offlineModel } from '../../shared/agent/model-step/offline-model.ts'
import { awsAgentParts } from '../../shared/aws/agent-environment.ts'

const { online: _online, ...options } = supportAgentOptions(process.env)
const aws = awsAgentParts()

export default agent({
  ...options,
  model: offlineModel({ wordDelayMs: 150 }),
  store: aws.store,
  dispatcher: aws.dispatcher,
  scheduler: aws.scheduler,
})
