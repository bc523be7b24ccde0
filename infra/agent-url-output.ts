import { CfnOutput, Stack } from 'aws-cdk-lib'
import type { Construct } from 'constructs'

/** The description of the endpoint output every A2Agent adds. */
export const AGENT_URL_OUTPUT_DESCRIPTION =
  "The agent's endpoint: GET ?sessionId= streams a session, POST pushes (POST {} opens one)"

/**
 * The agent's endpoint as a stack output, so `cdk deploy` prints it for
 * every stack, not only for apps that add it themselves: the REST API's own
 * `...ApiEndpoint...` output is the API's root, without `/agent`. It is
 * named after the agent's construct path below its stack, with `Url`
 * (`AgentUrl` for `new A2Agent(stack, 'Agent', ...)`), without the hash CDK
 * gives a nested construct's logical ID, so the printed name reads as the
 * construct; two agents in a stack have two paths, so two names.
 */
export function agentUrlOutput(agent: Construct, url: string): CfnOutput {
  const stack = Stack.of(agent)
  const name = agent.node.scopes
    .slice(agent.node.scopes.indexOf(stack) + 1)
    .map((scope) => scope.node.id.replace(/[^A-Za-z0-9]/g, ''))
    .join('')
  const output = new CfnOutput(agent, 'Url', {
    description: AGENT_URL_OUTPUT_DESCRIPTION,
    value: url,
  })
  output.overrideLogicalId(`${name}Url`)
  return output
}
