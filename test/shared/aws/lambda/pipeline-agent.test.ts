import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import {
  agentFromModule,
  authorizeFromModule,
} from '../../../../shared/aws/lambda/pipeline-agent.ts'
import { hasA2Code } from '../../../../shared/index.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'

const silent = { info: () => {}, warn: () => {}, error: () => {} }
const thrown = (run: () => unknown): unknown => {
  try {
    run()
  } catch (error) {
    return error
  }
  throw new Error('expected it to throw')
}

describe('the agent module a Lambda function loads', () => {
  it('without the named agent is INVALID_AGENT_MODULE, not MISSING_ENVIRONMENT, and names its exports', () => {
    const error = thrown(() => agentFromModule({ helper: () => {} }, 'support'))
    expect(hasA2Code(error, 'INVALID_AGENT_MODULE')).toBe(true)
    expect((error as Error).message).toContain('no agent named "support" (exports: helper)')
  })

  it('with an agent built without the AWS dispatcher is INVALID_AGENT_MODULE, and the message names awsAgentParts(), which exists', () => {
    const assistant = agent({ name: 'a', model: scriptedModel([]).model, logger: silent })
    const error = thrown(() => agentFromModule({ default: assistant }))
    expect(hasA2Code(error, 'INVALID_AGENT_MODULE')).toBe(true)
    expect((error as Error).message).toContain('awsAgentParts()')
  })

  it('with an authorize export that is not a function is INVALID_AGENT_MODULE', () => {
    const error = thrown(() => authorizeFromModule({ authorize: 'yes' }))
    expect(hasA2Code(error, 'INVALID_AGENT_MODULE')).toBe(true)
  })
})
