import { runInNewContext } from 'node:vm'
import { App, Stack } from 'aws-cdk-lib'
import { Annotations, Match } from 'aws-cdk-lib/assertions'
import { describe, expect, it } from 'vitest'
import { A2Agent, type A2AgentProps } from '../../infra/index.ts'
import { RESERVED_CONCURRENCY_HANDLER } from '../../infra/reserved-concurrency.ts'
import { templateOf } from '../support/template.ts'

type Call = { command: string; input: Record<string, unknown> }

/**
 * Runs the custom resource's inline code as Lambda would (CommonJS, the
 * runtime's SDK, `fetch` to CloudFormation's response URL), with a stand-in
 * Lambda API of the given account.
 */
async function runHandler(
  account: { limit: number; unreserved: number; current?: number; fails?: string },
  event: Record<string, unknown>,
) {
  const calls: Call[] = []
  const command = (name: string) =>
    class {
      readonly name = name
      readonly input: Record<string, unknown>
      constructor(input: Record<string, unknown>) {
        this.input = input
      }
    }
  const sdk = {
    GetAccountSettingsCommand: command('GetAccountSettings'),
    GetFunctionConcurrencyCommand: command('GetFunctionConcurrency'),
    PutFunctionConcurrencyCommand: command('PutFunctionConcurrency'),
    DeleteFunctionConcurrencyCommand: command('DeleteFunctionConcurrency'),
    LambdaClient: class {
      async send(sent: { name: string; input: Record<string, unknown> }) {
        calls.push({ command: sent.name, input: sent.input })
        if (sent.name === account.fails) throw new Error(`${sent.name} is not allowed`)
        if (sent.name === 'GetAccountSettings')
          return {
            AccountLimit: {
              ConcurrentExecutions: account.limit,
              UnreservedConcurrentExecutions: account.unreserved,
            },
          }
        if (sent.name === 'GetFunctionConcurrency')
          return account.current ? { ReservedConcurrentExecutions: account.current } : {}
        return {}
      }
    },
  }
  const answers: { url: string; method: string; body: Record<string, unknown> }[] = []
  const module = { exports: {} as { handler?: (e: unknown, c: unknown) => Promise<void> } }
  runInNewContext(RESERVED_CONCURRENCY_HANDLER, {
    module,
    exports: module.exports,
    require: (name: string) => {
      if (name !== '@aws-sdk/client-lambda') throw new Error(`unexpected require ${name}`)
      return sdk
    },
    console: { log: () => {} },
    fetch: async (url: string, init: { method: string; body: string }) => {
      answers.push({ url, method: init.method, body: JSON.parse(init.body) })
      return { ok: true }
    },
    JSON,
    Math,
    Number,
    String,
  })
  await module.exports.handler?.(
    {
      StackId: 'stack',
      RequestId: 'request',
      LogicalResourceId: 'StreamConcurrency',
      ResponseURL: 'https://cloudformation-response.example/signed',
      ...event,
    },
    { logStreamName: 'log-stream' },
  )
  return { calls, answers }
}

const create = {
  RequestType: 'Create',
  ResourceProperties: {
    FunctionName: 'stream-fn',
    Requested: '100',
    Lanes: '140 invocations in all',
    Nonce: '2026-12-02T10:00:00.000Z',
  },
}

describe('the stream function reservation (a custom resource)', () => {
  it('reserves what was asked when the account can spare it, keeping 100 unreserved', async () => {
    const { calls, answers } = await runHandler({ limit: 1000, unreserved: 1000 }, create)
    expect(calls.find((call) => call.command === 'PutFunctionConcurrency')?.input).toEqual({
      FunctionName: 'stream-fn',
      ReservedConcurrentExecutions: 100,
    })
    expect(answers).toEqual([
      expect.objectContaining({
        url: 'https://cloudformation-response.example/signed',
        method: 'PUT',
        body: expect.objectContaining({
          Status: 'SUCCESS',
          PhysicalResourceId: 'stream-fn',
          Data: {
            Reserved: 100,
            AccountLimit: 1000,
            Note: "100 of the account's 1000 concurrent executions reserved for GET streams",
          },
        }),
      }),
    ])
  })

  it('reserves less when that is all the account can spare', async () => {
    const { calls } = await runHandler({ limit: 160, unreserved: 160 }, create)
    expect(calls.find((call) => call.command === 'PutFunctionConcurrency')?.input).toMatchObject({
      ReservedConcurrentExecutions: 60,
    })
  })

  it('deploys in a new account (a quota of 10) without reserving, and says why, instead of failing the stack', async () => {
    const { calls, answers } = await runHandler({ limit: 10, unreserved: 10 }, create)
    expect(calls.map((call) => call.command)).not.toContain('PutFunctionConcurrency')
    expect(answers[0]?.body).toMatchObject({
      Status: 'SUCCESS',
      Data: { Reserved: 0, AccountLimit: 10 },
    })
    expect(answers[0]?.body.Reason).toContain('10 concurrent executions')
    // The note the stack outputs, which cdk deploy prints.
    expect((answers[0]?.body.Data as { Note: string } | undefined)?.Note).toBe(
      "none reserved: the account's Lambda concurrency quota is 10, and GET streams share it with the lanes, whose event sources may run 140 invocations in all; a few open tabs throttle the lanes. Raise the quota (Service Quotas, AWS Lambda, Concurrent executions) and redeploy.",
    )
  })

  it('reserves on the next deploy once the quota is raised: every deploy is an Update that reads the quota again', async () => {
    // The first deploy, at a quota of 10, reserved nothing; the quota is now 1,000.
    const { calls, answers } = await runHandler(
      { limit: 1000, unreserved: 1000 },
      {
        ...create,
        RequestType: 'Update',
        PhysicalResourceId: 'stream-fn',
        OldResourceProperties: { ...create.ResourceProperties, Nonce: '2026-12-01T09:00:00.000Z' },
      },
    )
    expect(calls.find((call) => call.command === 'PutFunctionConcurrency')?.input).toEqual({
      FunctionName: 'stream-fn',
      ReservedConcurrentExecutions: 100,
    })
    expect(answers[0]?.body).toMatchObject({ Status: 'SUCCESS', Data: { Reserved: 100 } })
  })

  it('says when it reserved less than asked', async () => {
    const { answers } = await runHandler({ limit: 160, unreserved: 160 }, create)
    expect((answers[0]?.body.Data as { Note: string } | undefined)?.Note).toBe(
      "60 of the account's 160 concurrent executions reserved for GET streams (100 asked; raise the quota and redeploy for more)",
    )
  })

  it("counts the function's own reservation as its to move on an update", async () => {
    const { calls } = await runHandler(
      { limit: 1000, unreserved: 860, current: 40 },
      { ...create, RequestType: 'Update', PhysicalResourceId: 'stream-fn' },
    )
    expect(calls.find((call) => call.command === 'PutFunctionConcurrency')?.input).toMatchObject({
      ReservedConcurrentExecutions: 100,
    })
  })

  it('gives the reservation back when the resource is deleted', async () => {
    const { calls, answers } = await runHandler(
      { limit: 1000, unreserved: 900 },
      { RequestType: 'Delete', PhysicalResourceId: 'stream-fn', ResourceProperties: {} },
    )
    expect(calls).toEqual([
      { command: 'DeleteFunctionConcurrency', input: { FunctionName: 'stream-fn' } },
    ])
    expect(answers[0]?.body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'stream-fn' })
  })

  it('fails the deploy with the reason when Lambda refuses', async () => {
    const { answers } = await runHandler(
      { limit: 1000, unreserved: 1000, fails: 'PutFunctionConcurrency' },
      create,
    )
    expect(answers[0]?.body).toMatchObject({ Status: 'FAILED' })
    expect(answers[0]?.body.Reason).toContain('PutFunctionConcurrency is not allowed')
  })
})

/** A template of an agent (not bundled). */
function synthesized(props: Partial<A2AgentProps> = {}) {
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Test')
  const agent = new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts', ...props })
  return { stack, agent, template: templateOf(stack) }
}

describe('the stream function reservation in the template', () => {
  it('changes on every synth, so CloudFormation runs it, and it reads the quota again, on every deploy', async () => {
    const reservationOf = () => {
      const [[, resource] = []] = synthesized().template.ofType('Custom::A2ReservedConcurrency')
      return resource?.Properties ?? {}
    }
    const first = reservationOf()
    await new Promise((resolve) => setTimeout(resolve, 5))
    const second = reservationOf()
    expect(first).toMatchObject({
      Requested: 100,
      // The default caps: generation 50, tools 50, timers 5.
      Lanes:
        '105 invocations in all on the capped queues, and one per session with work on admission, handlers, ingress',
    })
    expect(typeof first.Nonce).toBe('string')
    expect(second.Nonce).not.toBe(first.Nonce)
    // Only the nonce: the rest of the template stays as it was.
    expect({ ...second, Nonce: first.Nonce }).toEqual(first)
  }, 60_000)

  it('outputs what it reserved, or why nothing, which cdk deploy prints, and gives verify the figures', () => {
    const { template, agent } = synthesized()
    const outputs = template.template.toJSON().Outputs as Record<
      string,
      { Description?: string; Value: unknown }
    >
    const [[, resource] = []] = template.ofType('Custom::A2ReservedConcurrency')
    expect(resource).toBeDefined()
    const reservationId = Object.entries(template.resources).find(
      ([, candidate]) => candidate === resource,
    )?.[0]
    expect(outputs.AgentStreamConcurrency).toEqual({
      Description: expect.stringContaining('recomputed on every deploy'),
      Value: { 'Fn::GetAtt': [reservationId, 'Note'] },
    })
    const verify = JSON.stringify(
      Object.values(outputs).find((output) => output.Description?.startsWith('a2-aws verify')),
    )
    for (const attribute of ['Reserved', 'AccountLimit'])
      expect(verify).toContain(`"Fn::GetAtt":["${reservationId}","${attribute}"]`)
    expect(verify).toContain('\\"lanes\\":105')
    expect(verify).toContain('\\"uncappedQueues\\":3')
    expect(agent.streamConcurrency).toBeDefined()
  })

  it("warns at synth when the stated quota leaves nothing to reserve (a new account's 10), and not otherwise", () => {
    const warnings = (props: Partial<A2AgentProps>) =>
      Annotations.fromStack(synthesized(props).stack)
        .findWarning('*', Match.anyValue())
        .map((warning) => String(warning.entry.data))
        .filter((text) => text.includes('concurrency quota'))
    const [small] = warnings({ lambdaConcurrencyQuota: 10 })
    expect(small).toContain("The account's Lambda concurrency quota is 10")
    expect(small).toContain(
      "the lanes' event sources may run 105 invocations in all on the capped queues, and one per session with work on admission, handlers, ingress",
    )
    expect(small).toContain('the reservation is recomputed on every deploy')
    expect(warnings({ lambdaConcurrencyQuota: 1000 })).toEqual([])
    expect(warnings({})).toEqual([])
  })
})
