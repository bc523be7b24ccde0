import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { RESERVED_CONCURRENCY_HANDLER } from '../../infra/reserved-concurrency.ts'

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
  ResourceProperties: { FunctionName: 'stream-fn', Requested: '100' },
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
          Data: { Reserved: 100 },
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
    expect(answers[0]?.body).toMatchObject({ Status: 'SUCCESS', Data: { Reserved: 0 } })
    expect(answers[0]?.body.Reason).toContain('10 concurrent executions')
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
