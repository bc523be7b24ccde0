import { CfnOutput, Stack } from 'aws-cdk-lib'
import type { Construct } from 'constructs'

/**
 * The description of the endpoint output every A2Agent adds.
 * @internal Exported for its test (knip --production).
 */
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
  return constructOutput(agent, 'Url', { description: AGENT_URL_OUTPUT_DESCRIPTION, value: url })
}

/**
 * A stack output of a construct, named after its path below the stack and
 * `id` (`SupportAgentStreamConcurrency`), without the hash CDK gives a
 * nested construct's logical ID, so `cdk deploy` prints a name people read.
 */
export function constructOutput(
  construct: Construct,
  id: string,
  props: { description: string; value: string },
): CfnOutput {
  const stack = Stack.of(construct)
  const name = construct.node.scopes
    .slice(construct.node.scopes.indexOf(stack) + 1)
    .map((scope) => scope.node.id.replace(/[^A-Za-z0-9]/g, ''))
    .join('')
  // The construct's own child may already be called `id`: the output's is apart.
  const output = new CfnOutput(construct, id === 'Url' ? id : `${id}Output`, props)
  output.overrideLogicalId(`${name}${id}`)
  return output
}
