import { type App, CfnOutput, CrossStackReferences, ReferenceStrength, Stack } from 'aws-cdk-lib'
import { A2Agent } from './a2-agent.ts'
import { A2ChatPage } from './chat-page.ts'
import { type ExampleSettings, exampleAgentProps } from './example-agent-props.ts'

/**
 * The example's stack names: the agent's, and the chat page's beside it.
 * @internal Exported for its test (knip --production).
 */
export const EXAMPLE_STACKS = { agent: 'A2ExampleAgent', chatPage: 'A2ExampleChatPage' } as const

/**
 * The repo's example: the support agent in one stack and its chat page in
 * another, so the agent deploys alone. A CloudFront distribution is the
 * one resource a new account may be refused ("Your account must be
 * verified before you can add new CloudFront resources", until AWS Support
 * verifies it); in the agent's stack that refusal rolled the whole agent
 * back. Now `cdk deploy A2ExampleAgent` deploys the agent alone, and with
 * `--all` a refused page rolls back only its own stack, after the agent's
 * has deployed (the page stack depends on it: it imports the API).
 *
 * @example
 * exampleApp(new App(), { A2_MODEL: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0' }, 'functions/example/web/dist')
 */
export function exampleApp(app: App, settings: ExampleSettings, webRoot: string) {
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION }
  const agentStack = new Stack(app, EXAMPLE_STACKS.agent, {
    env,
    description: 'a2 example: the support agent (event log, queues, functions, API)',
  })
  const agent = new A2Agent(agentStack, 'SupportAgent', exampleAgentProps(agentStack, settings))
  // The agent's endpoint is the construct's own output, SupportAgentUrl.
  new CfnOutput(agentStack, 'IngressQueueUrl', { value: agent.ingressQueue.queueUrl })

  const chatPageStack = new Stack(app, EXAMPLE_STACKS.chatPage, {
    env,
    description: "a2 example: the support agent's chat page on CloudFront, its API under /api/*",
  })
  // Strong (Fn::ImportValue), said explicitly: the agent's stack keeps the
  // API the page points at while the page's stack exists (delete the page's
  // stack first).
  CrossStackReferences.of(chatPageStack).consume(ReferenceStrength.STRONG)
  const chatPage = new A2ChatPage(chatPageStack, 'ChatPage', { agent, source: webRoot })
  new CfnOutput(chatPageStack, 'ChatPageUrl', { value: chatPage.url })
  return { agentStack, agent, chatPageStack, chatPage }
}
