import { describe, expect, it } from 'vitest'
import { pickVerifyOutput, readStackTarget } from '../../../../functions/cli/verify/stack-target.ts'
import {
  VERIFY_OUTPUT_DESCRIPTION,
  type VerifyConfig,
} from '../../../../shared/aws/verify-output.ts'
import { fakeClient } from '../../../support/fake-clients.ts'

const config = (path: string): VerifyConfig => ({
  path,
  url: `https://abc.execute-api.eu-west-1.amazonaws.com/prod/agent`,
  region: 'eu-west-1',
  scheduleGroup: 'Support-Agent-ScheduleGroup-1',
  schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
  timerQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:timers',
  timerQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/timers',
  schedulerDeadLetterQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:scheduler-dlq',
  streamLogGroup: 'Support-AgentStreamFunctionLogs-1',
})
const output = (key: string, path: string) => ({
  OutputKey: key,
  OutputValue: JSON.stringify(config(path)),
  Description: VERIFY_OUTPUT_DESCRIPTION,
})
const others = [
  { OutputKey: 'AgentUrl', OutputValue: 'https://abc/prod/agent' },
  { OutputKey: 'Note', OutputValue: '{"path":"x"}', Description: 'something else' },
]

describe("finding the agent in a stack's outputs", () => {
  it('takes the one output marked as the verify configuration', () => {
    expect(
      pickVerifyOutput('Support', [...others, output('AgentVerifyConfig1', 'Support/Agent')]),
    ).toEqual(config('Support/Agent'))
  })

  it('asks for --agent when the stack holds several agents, and lists them', () => {
    const outputs = [
      output('SalesVerifyConfigA', 'Shop/Sales'),
      output('HelpVerifyConfigB', 'Shop/Help'),
    ]
    expect(() => pickVerifyOutput('Shop', outputs)).toThrow(
      expect.objectContaining({
        code: 'AGENT_REQUIRED',
        message:
          'Stack Shop holds 2 agents; pick one with --agent: Shop/Sales (output SalesVerifyConfigA), Shop/Help (output HelpVerifyConfigB)',
      }),
    )
    expect(pickVerifyOutput('Shop', outputs, 'Shop/Help').path).toBe('Shop/Help')
    expect(pickVerifyOutput('Shop', outputs, 'Help').path).toBe('Shop/Help')
    expect(pickVerifyOutput('Shop', outputs, 'SalesVerifyConfigA').path).toBe('Shop/Sales')
    expect(() => pickVerifyOutput('Shop', outputs, 'Billing')).toThrow(
      expect.objectContaining({
        code: 'AGENT_NOT_FOUND',
        message: expect.stringContaining('Shop/Sales (output SalesVerifyConfigA)'),
      }),
    )
  })

  it('says so when the stack has no verify output, or a broken one', () => {
    expect(() => pickVerifyOutput('Old', others)).toThrow(
      expect.objectContaining({ code: 'NO_VERIFY_OUTPUT' }),
    )
    const broken = { ...output('AgentVerifyConfig1', 'S/Agent'), OutputValue: '{"path":"S/Agent"}' }
    expect(() => pickVerifyOutput('S', [broken])).toThrow(
      expect.objectContaining({
        code: 'BAD_VERIFY_OUTPUT',
        message: expect.stringContaining('AgentVerifyConfig1'),
      }),
    )
  })

  it('reads the outputs with DescribeStacks', async () => {
    const cloudFormation = fakeClient(() => ({
      Stacks: [{ StackName: 'Support', Outputs: [output('AgentVerifyConfig1', 'Support/Agent')] }],
    }))
    expect(await readStackTarget(cloudFormation.client, 'Support')).toEqual(config('Support/Agent'))
    expect(cloudFormation.sent).toEqual([
      { name: 'DescribeStacksCommand', input: { StackName: 'Support' } },
    ])
  })

  it("turns CloudFormation's answer to a missing stack into STACK_NOT_FOUND", async () => {
    const missing = Object.assign(new Error('Stack with id Nope does not exist'), {
      name: 'ValidationError',
    })
    const cloudFormation = fakeClient(() => {
      throw missing
    })
    await expect(readStackTarget(cloudFormation.client, 'Nope')).rejects.toMatchObject({
      code: 'STACK_NOT_FOUND',
      message: expect.stringContaining('Stack with id Nope does not exist'),
    })
  })
})
