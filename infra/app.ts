// The repo's CDK app (`cdk.json`): deploys the example agent.
//   npx cdk synth   (offline, no credentials)
//   npx cdk deploy
import { App, CfnOutput, Stack } from 'aws-cdk-lib'
import { A2Agent } from './a2-agent.ts'

const app = new App()
const stack = new Stack(app, 'A2ExampleAgent', {
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
})
const agent = new A2Agent(stack, 'SupportAgent', {
  entry: 'functions/example-agent.ts',
  // Without AI_GATEWAY_API_KEY the example answers with its offline demo
  // model. The key is not put in the template (it would be readable there):
  // see docs/deploy.md for giving it to the functions.
  ...(process.env.A2_MODEL ? { environment: { A2_MODEL: process.env.A2_MODEL } } : {}),
})
new CfnOutput(stack, 'AgentUrl', { value: agent.url })
new CfnOutput(stack, 'IngressQueueUrl', { value: agent.ingressQueue.queueUrl })
app.synth()
