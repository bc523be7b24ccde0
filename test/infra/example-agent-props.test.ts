import { App, Stack } from 'aws-cdk-lib'
import { describe, expect, it } from 'vitest'
import { exampleAgentProps } from '../../infra/example-agent-props.ts'

const SONNET_US = 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0'
const stack = () => new Stack(new App(), 'Example')

describe('the example stack (infra/app.ts) settings', () => {
  it('deploys on Amazon Bedrock with one setting: A2_MODEL=bedrock:<id> sets the model and grants exactly it, with no key', () => {
    expect(exampleAgentProps(stack(), { A2_MODEL: SONNET_US })).toEqual({
      entry: 'functions/example-agent.ts',
      environment: { A2_MODEL: SONNET_US },
      bedrockModels: [SONNET_US],
    })
  })

  it('reads the AI Gateway key from the secret A2_GATEWAY_KEY_SECRET names (Secrets Manager, or an SSM parameter by its /path), never from the template', () => {
    const fromSecret = exampleAgentProps(stack(), {
      A2_MODEL: 'openai/gpt-5.6-luna',
      A2_GATEWAY_KEY_SECRET: 'a2/gateway-key',
    })
    expect(fromSecret.environment).toEqual({ A2_MODEL: 'openai/gpt-5.6-luna' })
    expect(fromSecret.bedrockModels).toBeUndefined()
    expect(fromSecret.secrets).toMatchObject({
      AI_GATEWAY_API_KEY: { secretName: 'a2/gateway-key' },
    })

    const fromParameter = exampleAgentProps(stack(), { A2_GATEWAY_KEY_SECRET: '/a2/gateway-key' })
    expect(fromParameter.secrets).toMatchObject({
      AI_GATEWAY_API_KEY: { parameterName: '/a2/gateway-key' },
    })
  })

  it('passes A2_GATEWAY_URL to the functions as it is, beside the model', () => {
    const props = exampleAgentProps(stack(), {
      A2_MODEL: 'openai/gpt-5.6-luna',
      A2_GATEWAY_URL: 'https://gateway.example.com',
    })
    expect(props.environment).toEqual({
      A2_MODEL: 'openai/gpt-5.6-luna',
      A2_GATEWAY_URL: 'https://gateway.example.com',
    })
  })

  it("passes the account's Lambda concurrency quota, when stated, for synth's small-quota warning, and refuses one that is not a whole number", () => {
    expect(exampleAgentProps(stack(), { A2_LAMBDA_CONCURRENCY_QUOTA: '10' })).toMatchObject({
      lambdaConcurrencyQuota: 10,
    })
    expect(() => exampleAgentProps(stack(), { A2_LAMBDA_CONCURRENCY_QUOTA: 'ten' })).toThrow(
      /A2_LAMBDA_CONCURRENCY_QUOTA is the account's Lambda concurrency quota, a whole number .* not "ten"/,
    )
  })

  it('without settings deploys the offline demo: no model, no grant, no secret', () => {
    expect(exampleAgentProps(stack(), {})).toEqual({ entry: 'functions/example-agent.ts' })
  })
})
