import { describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import {
  awsAgentParts,
  environmentVariables,
  readAwsEnvironment,
} from '../../../shared/aws/agent-environment.ts'
import {
  type AwsEnvironment,
  ENVIRONMENT_VARIABLES,
  laneQueueUrlVariable,
} from '../../../shared/aws/environment-variables.ts'
import { scriptedModel } from '../../../shared/testing/scripted-model.ts'
import { fakeClient } from '../../support/fake-clients.ts'

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

  it("carries the construct's erase grant (A2_ERASE) and refuses a value it does not know", () => {
    for (const erase of ['granted', 'not-granted'] as const) {
      const granted = { ...environment, erase }
      expect(environmentVariables(granted)[ENVIRONMENT_VARIABLES.erase]).toBe(erase)
      expect(readAwsEnvironment(environmentVariables(granted))).toEqual(granted)
    }
    expect(ENVIRONMENT_VARIABLES.erase in environmentVariables(environment)).toBe(false)
    expect(() =>
      readAwsEnvironment({
        ...environmentVariables(environment),
        [ENVIRONMENT_VARIABLES.erase]: 'yes',
      }),
    ).toThrow(/A2_ERASE \(granted or not-granted, not "yes"\)/)
  })

  it('fails an erase at once where the role may not erase (A2_ERASE=not-granted), naming the prop that grants it, before any request', async () => {
    const dynamodb = fakeClient()
    const scheduler = fakeClient(() => ({ Schedules: [] }))
    const sqs = fakeClient()
    const clients = { dynamodb: dynamodb.client, scheduler: scheduler.client, sqs: sqs.client }
    const refused = awsAgentParts({
      environment: { ...environment, erase: 'not-granted' },
      clients,
    })
    for (const attempt of [refused.scheduler.cancel('s1'), refused.store.erase('s1')]) {
      await expect(attempt).rejects.toMatchObject({
        name: 'PipelineError',
        code: 'ERASE_NOT_GRANTED',
        message: expect.stringContaining('give the A2Agent the prop `erase: true`'),
      })
    }
    expect([...dynamodb.sent, ...scheduler.sent, ...sqs.sent]).toEqual([])

    // An agent's erase stops there too: its timers and its log are untouched.
    const a = agent({
      name: 'no-erase',
      model: scriptedModel([]).model,
      store: refused.store,
      dispatcher: refused.dispatcher,
      scheduler: refused.scheduler,
      logger: { info: () => {}, warn: () => {}, error: () => {} },
    })
    await expect(a.session('s1').erase({ force: true })).rejects.toMatchObject({
      code: 'ERASE_NOT_GRANTED',
    })
    a.runtime.close()
    expect(scheduler.sent).toEqual([])
    expect(dynamodb.sent.map((command) => command.name)).not.toContain('BatchWriteItemCommand')
    expect(dynamodb.sent.map((command) => command.name)).not.toContain('DeleteItemCommand')

    // Granted, or unset (a local run, an operator's script): erase goes ahead.
    for (const erase of ['granted', undefined] as const) {
      const allowed = awsAgentParts({
        environment: { ...environment, ...(erase ? { erase } : {}) },
        clients,
      })
      expect(await allowed.scheduler.cancel('s1')).toBe(0)
    }
    expect(scheduler.sent.map((command) => command.name)).toEqual([
      'ListSchedulesCommand',
      'ListSchedulesCommand',
    ])
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
