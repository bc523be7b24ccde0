import { App, Stack } from 'aws-cdk-lib'
import { Construct } from 'constructs'
import { describe, expect, it } from 'vitest'
import { AGENT_URL_OUTPUT_DESCRIPTION } from '../../infra/agent-url-output.ts'
import { A2Agent } from '../../infra/index.ts'
import { templateOf } from '../support/template.ts'

// Not bundled: only the outputs matter (cfn-lint runs on the bundled
// default template in a2-agent.test.ts, this output included).
const unbundled = () => new App({ context: { 'aws:cdk:bundling-stacks': [] } })
type Output = { Description?: string; Value: unknown }
const outputsOf = (stack: Stack) =>
  templateOf(stack).template.toJSON().Outputs as Record<string, Output>

describe("the A2Agent's endpoint output", () => {
  it('is AgentUrl for new A2Agent(stack, "Agent"): the /agent endpoint, which cdk deploy prints by that name', () => {
    const stack = new Stack(unbundled(), 'Support')
    const agent = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts' })
    const outputs = outputsOf(stack)
    expect(outputs.AgentUrl).toEqual({
      Description: AGENT_URL_OUTPUT_DESCRIPTION,
      Value: stack.resolve(agent.url),
    })
    // The REST API's own output is its root; the agent's ends in /agent.
    const joined = JSON.stringify(outputs.AgentUrl?.Value)
    expect(joined).toContain('/agent')
  }, 60_000)

  it("is named after the construct's path below its stack, so two agents in a stack get two names", () => {
    const stack = new Stack(unbundled(), 'Agents')
    const team = new Construct(stack, 'Team-1')
    new A2Agent(team, 'Support', { entry: 'functions/example-agent.ts' })
    new A2Agent(stack, 'Billing', { entry: 'functions/example-agent.ts' })
    const named = Object.entries(outputsOf(stack))
      .filter(([, output]) => output.Description === AGENT_URL_OUTPUT_DESCRIPTION)
      .map(([name]) => name)
      .sort()
    expect(named).toEqual(['BillingUrl', 'Team1SupportUrl'])
  }, 60_000)
})
