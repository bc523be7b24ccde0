// The repo's CDK app (`cdk.json`): the example agent and its chat page, each
// in its own stack (infra/example-app.ts), so the agent deploys alone:
//   npx cdk synth                      (offline, no credentials)
//   npx cdk deploy A2ExampleAgent      (the agent)
//   npx cdk deploy --all               (the agent, then its chat page)
import { fileURLToPath } from 'node:url'
import { App } from 'aws-cdk-lib'
import { build } from 'vite'
import { exampleApp } from './example-app.ts'

// The chat page is built on every synth, as the functions are bundled on
// every synth, so a deploy never ships a stale or missing page. This is the
// build `npm run build:web` runs; it writes functions/example/web/dist.
const webConfig = fileURLToPath(new URL('../functions/example/web/vite.config.ts', import.meta.url))
const webRoot = fileURLToPath(new URL('../functions/example/web/dist/', import.meta.url))
await build({ configFile: webConfig, build: { outDir: webRoot } })

const app = new App()
// One setting picks the model: A2_MODEL=bedrock:<ID> runs on Amazon Bedrock;
// an AI Gateway model reads its key from the secret A2_GATEWAY_KEY_SECRET
// names; with neither, the offline demo model (see infra/example-agent-props.ts).
const setting = (name: string): string | undefined =>
  process.env[name] ?? app.node.tryGetContext(name)
exampleApp(
  app,
  {
    A2_MODEL: setting('A2_MODEL'),
    A2_GATEWAY_KEY_SECRET: setting('A2_GATEWAY_KEY_SECRET'),
    A2_GATEWAY_URL: setting('A2_GATEWAY_URL'),
    A2_LAMBDA_CONCURRENCY_QUOTA: setting('A2_LAMBDA_CONCURRENCY_QUOTA'),
  },
  webRoot,
)
app.synth()
