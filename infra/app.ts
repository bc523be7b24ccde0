// The repo's CDK app (`cdk.json`): deploys the example agent and its chat page.
//   npx cdk synth   (offline, no credentials)
//   npx cdk deploy
import { fileURLToPath } from 'node:url'
import { App, CfnOutput, Stack } from 'aws-cdk-lib'
import { build } from 'vite'
import { A2Agent } from './a2-agent.ts'
import { A2ChatPage } from './chat-page.ts'

// The chat page is built on every synth, as the functions are bundled on
// every synth, so a deploy never ships a stale or missing page. This is the
// build `npm run build:web` runs; it writes functions/example/web/dist.
const webConfig = fileURLToPath(new URL('../functions/example/web/vite.config.ts', import.meta.url))
const webRoot = fileURLToPath(new URL('../functions/example/web/dist/', import.meta.url))
await build({ configFile: webConfig, build: { outDir: webRoot } })

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
const chatPage = new A2ChatPage(stack, 'ChatPage', { agent, source: webRoot })
new CfnOutput(stack, 'AgentUrl', { value: agent.url })
new CfnOutput(stack, 'IngressQueueUrl', { value: agent.ingressQueue.queueUrl })
new CfnOutput(stack, 'ChatPageUrl', { value: chatPage.url })
app.synth()
