import { afterEach, describe, expect, it, vi } from 'vitest'
import { bedrockInvoker } from '../../../../functions/cli/verify/bedrock-invoke.ts'
import { runModelsCheck } from '../../../../functions/cli/verify/models-check.ts'
import { verifyCommand } from '../../../../functions/cli/verify/verify-command.ts'
import { VERIFY_OUTPUT_DESCRIPTION } from '../../../../shared/aws/verify-output.ts'
import { type BedrockDouble, bedrockDouble } from '../../../../shared/testing/bedrock-double.ts'
import { text } from '../../../../shared/testing/model-script.ts'
import { fakeClient } from '../../../support/fake-clients.ts'

const SONNET = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'
const NOVA = 'us.amazon.nova-lite-v1:0'
const MISTRAL = 'mistral.mistral-large-2407-v1:0'
// What Bedrock answers a third-party model's first call when the caller may
// not subscribe the account (docs: "Request access to models").
const MARKETPLACE_DENIED =
  'Model access is denied due to IAM user or service role is not authorized to perform the required AWS Marketplace actions (aws-marketplace:ViewSubscriptions, aws-marketplace:Subscribe) to enable access to this model.'
const FORM_MISSING =
  'Model use case details have not been submitted for this account. Fill out the Anthropic use case details form before using the model.'

let double: BedrockDouble | undefined
afterEach(async () => {
  await double?.close()
  double = undefined
})

/** The Bedrock double on loopback: each model answers as `answers` says. */
async function bedrockAnswering(answers: Record<string, 'ok' | string>) {
  double = await bedrockDouble({
    script: (call) => {
      const answer = answers[call.modelId]
      return answer === 'ok' || answer === undefined
        ? text('OK')
        : { error: answer, status: 403, type: 'AccessDeniedException' }
    },
  })
  const { credentials, url } = double
  return {
    double,
    invoke: bedrockInvoker({
      region: 'us-east-1',
      credentials: async () => credentials,
      baseURL: url,
    }),
  }
}

describe('the models check: a one-token call to each granted Bedrock model', () => {
  it("passes when every model answers, each call signed with the caller's credentials and asking for one token", async () => {
    const { double, invoke } = await bedrockAnswering({ [SONNET]: 'ok', [NOVA]: 'ok' })
    const outcome = await runModelsCheck([SONNET, NOVA], invoke)
    expect(outcome).toMatchObject({
      status: 'PASS',
      detail: expect.stringMatching(
        new RegExp(
          `^one-token calls answered: ${SONNET.replace(/\./g, '\\.')} \\(\\d+ ms\\), us\\.amazon`,
        ),
      ),
    })
    expect(double.calls.map((call) => call.modelId)).toEqual([SONNET, NOVA])
    for (const call of double.calls) {
      expect(call.body.inferenceConfig).toMatchObject({ maxTokens: 1 })
      expect(call.authorization).toMatch(
        new RegExp(
          `^AWS4-HMAC-SHA256 Credential=${double.credentials.accessKeyId}/\\d{8}/us-east-1/bedrock/`,
        ),
      )
    }
  })

  it('names the model the account may not use yet and says what the admin does: the Marketplace subscription', async () => {
    const { invoke } = await bedrockAnswering({ [SONNET]: 'ok', [MISTRAL]: MARKETPLACE_DENIED })
    const outcome = await runModelsCheck([SONNET, MISTRAL], invoke)
    expect(outcome.status).toBe('FAIL')
    expect(outcome.detail).toContain(`denied: ${MISTRAL}: `)
    expect(outcome.detail).toContain(
      'aws-marketplace:Subscribe, aws-marketplace:ViewSubscriptions and aws-marketplace:Unsubscribe',
    )
    expect(outcome.detail).toMatch(new RegExp(`Answered: ${SONNET.replace(/\./g, '\\.')} \\(`))
    expect(outcome.figures.denied).toBe(1)
  })

  it("says when it is Anthropic's first-time use form that is missing", async () => {
    const { invoke } = await bedrockAnswering({ [SONNET]: FORM_MISSING })
    const outcome = await runModelsCheck([SONNET], invoke)
    expect(outcome.status).toBe('FAIL')
    expect(outcome.detail).toContain(`denied: ${SONNET}: `)
    expect(outcome.detail).toContain("Anthropic's first-time use form has not been submitted")
  })

  it('skips an agent granted no Bedrock model, and a run without AWS', async () => {
    expect(await runModelsCheck([], async () => {})).toMatchObject({ status: 'SKIP' })
    expect(await runModelsCheck([SONNET], undefined)).toMatchObject({ status: 'SKIP' })
  })
})

describe('npm run verify -- --only models', () => {
  it("calls each model the stack's verify output names, in the stack's region, with the environment's credentials", async () => {
    const { double } = await bedrockAnswering({ [SONNET]: 'ok', [MISTRAL]: MARKETPLACE_DENIED })
    for (const [name, value] of Object.entries(double.env())) vi.stubEnv(name, value)
    const out: string[] = []
    const cloudFormation = fakeClient(() => ({
      Stacks: [
        {
          Outputs: [
            {
              OutputKey: 'AgentVerifyConfig',
              Description: VERIFY_OUTPUT_DESCRIPTION,
              OutputValue: JSON.stringify({
                path: 'Support/Agent',
                url: 'https://abc.execute-api.us-east-1.amazonaws.com/prod/agent',
                region: 'us-east-1',
                scheduleGroup: 'group',
                schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
                timerQueueArn: 'arn:aws:sqs:us-east-1:123456789012:timers',
                timerQueueUrl: 'https://sqs.us-east-1.amazonaws.com/123456789012/timers',
                schedulerDeadLetterQueueArn: 'arn:aws:sqs:us-east-1:123456789012:scheduler-dlq',
                streamLogGroup: 'stream-logs',
                bedrockModels: [SONNET, MISTRAL],
                concurrency: {
                  lanes: '140',
                  streamsRequested: 100,
                  streamsReserved: '0',
                  accountLimit: '10',
                },
              }),
            },
          ],
        },
      ],
    }))
    const code = await verifyCommand(['--stack', 'Support', '--only', 'concurrency,models'], {
      stdout: (line) => out.push(line),
      stderr: () => {},
      cloudFormation: () => cloudFormation.client,
      bedrockBaseURL: double.url,
    })
    expect(code).toBe(1)
    expect(out[0]).toMatch(
      /^WARN concurrency the account's Lambda concurrency quota was 10 at the last deploy/,
    )
    expect(out[1]).toMatch(new RegExp(`^FAIL models +denied: ${MISTRAL.replace(/\./g, '\\.')}: `))
    expect(out[2]).toMatch(/^FAILED: 0 passed, 1 failed, 0 skipped, 1 warned/)
    expect(double.calls.map((call) => call.modelId)).toEqual([SONNET, MISTRAL])
    expect(double.calls[0]?.authorization).toContain(
      `Credential=${double.credentials.accessKeyId}/`,
    )
  })
})
