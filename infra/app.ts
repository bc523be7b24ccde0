// The repo's CDK app (`cdk.json`): deploys the example agent and its chat page.
//   npx cdk synth   (offline, no credentials)
//   npx cdk deploy
import { fileURLToPath } from 'node:url'
import { App, CfnOutput, Stack } from 'aws-cdk-lib'
import { build } from 'vite'
import { A2Agent } from './a2-agent.ts'
import { A2ChatPage } from './chat-page.ts'
import { exampleAgentProps } from './example-agent-props.ts'

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
// One setting picks the model: A2_MODEL=bedrock:<ID> runs on Amazon Bedrock;
// an AI Gateway model reads its key from the secret A2_GATEWAY_KEY_SECRET
// names; with neither, the offline demo model (see infra/example-agent-props.ts).
const setting = (name: string): string | undefined =>
  process.env[name] ?? app.node.tryGetContext(name)
const agent = new A2Agent(
  stack,
  'SupportAgent',
  exampleAgentProps(stack, {
    A2_MODEL: setting('A2_MODEL'),
    A2_GATEWAY_KEY_SECRET: setting('A2_GATEWAY_KEY_SECRET'),
    A2_GATEWAY_URL: setting('A2_GATEWAY_URL'),
  }),
)
const chatPage = new A2ChatPage(stack, 'ChatPage', { agent, source: webRoot })
// The agent's endpoint is the construct's own output, SupportAgentUrl.
new CfnOutput(stack, 'IngressQueueUrl', { value: agent.ingressQueue.queueUrl })
new CfnOutput(stack, 'ChatPageUrl', { value: chatPage.url })
app.synth()
