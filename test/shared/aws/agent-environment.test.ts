import { describe, expect, it } from 'vitest'
import {
  awsAgentParts,
  ENVIRONMENT_VARIABLES,
  environmentVariables,
  readAwsEnvironment,
} from '../../../shared/aws/agent-environment.ts'
import {
  type AwsEnvironment,
  laneQueueUrlVariable,
} from '../../../shared/aws/environment-variables.ts'

const environment: AwsEnvironment = {
  tableName: 'events',
  queueUrls: { admission: 'qa', generation: 'qg', tools: 'qt', handlers: 'qh' },
  ingressQueueUrl: 'qi',
  timers: {
    queueUrl: 'qtimers',
    queueArn: 'arn:timers',
    scheduleGroup: 'group',
    schedulerRoleArn: 'arn:role',
    deadLetterQueueArn: 'arn:dlq',
  },
  agentExport: 'support',
  maxReceiveCount: 7,
}

describe('the pipeline environment', () => {
  it('reads back what the construct writes', () => {
    expect(readAwsEnvironment(environmentVariables(environment))).toEqual(environment)
  })

  it('reads back the metrics target and the model telemetry switch, which are optional', () => {
    const observed: AwsEnvironment = {
      ...environment,
      metrics: { namespace: 'Acme/Agents', service: 'Prod/Support' },
      modelTelemetry: true,
    }
    expect(readAwsEnvironment(environmentVariables(observed))).toEqual(observed)
    const variables = environmentVariables(observed)
    delete variables[ENVIRONMENT_VARIABLES.metricsNamespace]
    variables[ENVIRONMENT_VARIABLES.modelTelemetry] = 'yes'
    expect(readAwsEnvironment(variables)).toMatchObject({
      metrics: { namespace: 'a2', service: 'Prod/Support' },
    })
    expect(readAwsEnvironment(variables).modelTelemetry).toBeUndefined()
  })

  it("carries the construct's retention to the agent: A2_RETENTION, then awsAgentParts()' retention option", () => {
    const retained = { ...environment, retention: '30 days' }
    const variables = environmentVariables(retained)
    expect(variables[ENVIRONMENT_VARIABLES.retention]).toBe('30 days')
    expect(readAwsEnvironment(variables)).toEqual(retained)
    expect(awsAgentParts({ environment: retained }).retention).toBe('30 days')
    expect(ENVIRONMENT_VARIABLES.retention in environmentVariables(environment)).toBe(false)
    expect(awsAgentParts({ environment })).not.toHaveProperty('retention')
  })

  it('defaults the export and maxReceiveCount', () => {
    const variables = environmentVariables(environment)
    delete variables[ENVIRONMENT_VARIABLES.agentExport]
    delete variables[ENVIRONMENT_VARIABLES.maxReceiveCount]
    expect(readAwsEnvironment(variables)).toMatchObject({
      agentExport: 'default',
      maxReceiveCount: 5,
    })
  })

  it('names every missing or malformed variable in one MISSING_ENVIRONMENT error', () => {
    const variables = environmentVariables(environment)
    delete variables[ENVIRONMENT_VARIABLES.tableName]
    delete variables[laneQueueUrlVariable('tools')]
    variables[ENVIRONMENT_VARIABLES.maxReceiveCount] = 'five'
    expect(() => readAwsEnvironment(variables)).toThrow(
      expect.objectContaining({
        code: 'MISSING_ENVIRONMENT',
        message: expect.stringMatching(
          /A2_TABLE_NAME, A2_TOOLS_QUEUE_URL, A2_MAX_RECEIVE_COUNT \(an integer from 1 to 1000, not "five"\)/,
        ),
      }),
    )
  })
})
