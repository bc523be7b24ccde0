import { describe, expect, it } from 'vitest'
import type { VerifyOptions, VerifyReport } from '../../../../functions/cli/verify/run-verify.ts'
import { verifyCommand } from '../../../../functions/cli/verify/verify-command.ts'
import { VERIFY_OUTPUT_DESCRIPTION } from '../../../../shared/aws/verify-output.ts'
import { fakeClient } from '../../../support/fake-clients.ts'

const agentOutput = (path: string, more: Record<string, unknown> = {}) => ({
  OutputKey: `${path.split('/')[1]}VerifyConfig1A2B`,
  Description: VERIFY_OUTPUT_DESCRIPTION,
  OutputValue: JSON.stringify({
    ...more,
    path,
    url: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/agent',
    region: 'eu-west-1',
    scheduleGroup: 'group',
    schedulerRoleArn: 'arn:aws:iam::123456789012:role/scheduler',
    timerQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:timers',
    timerQueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/timers',
    schedulerDeadLetterQueueArn: 'arn:aws:sqs:eu-west-1:123456789012:scheduler-dlq',
    streamLogGroup: 'stream-logs',
  }),
})

function command(outputs: unknown[], report?: Partial<VerifyReport>) {
  const out: string[] = []
  const err: string[] = []
  const runs: VerifyOptions[] = []
  const cloudFormation = fakeClient(() => ({ Stacks: [{ Outputs: outputs }] }))
  const regions: (string | undefined)[] = []
  const io = {
    stdout: (line: string) => out.push(line),
    stderr: (line: string) => err.push(line),
    cloudFormation: (region: string | undefined) => {
      regions.push(region)
      return cloudFormation.client
    },
    run: async (options: VerifyOptions): Promise<VerifyReport> => {
      runs.push(options)
      const results = [
        { check: 'answer' as const, status: 'PASS' as const, detail: 'answered', figures: {} },
        { check: 'timer' as const, status: 'FAIL' as const, detail: 'never fired', figures: {} },
      ]
      for (const result of results) options.onResult?.(result)
      return {
        url: options.url,
        sessionId: 'a2-verify-x',
        results,
        passed: 1,
        warned: 0,
        failed: 1,
        skipped: 0,
        ok: false,
        ...report,
      }
    },
  }
  return { io, out, err, runs, regions }
}

describe('a2-aws verify', () => {
  it("finds the agent in the stack's outputs and checks it with the stack's AWS resources", async () => {
    const { io, out, runs, regions } = command([agentOutput('Support/Agent')], {
      ok: true,
      failed: 0,
      passed: 2,
    })
    const code = await verifyCommand(
      ['--stack', 'Support', '--region', 'eu-west-1', '--skip', 'closed'],
      io,
    )
    expect(code).toBe(0)
    expect(regions).toEqual(['eu-west-1'])
    expect(runs[0]).toMatchObject({
      url: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/agent',
      checks: [
        'concurrency',
        'alarms',
        'models',
        'answer',
        'streaming',
        'heartbeat',
        'timer',
        'router',
      ],
      quietMs: 75_000,
      timerDelayMs: 120_000,
    })
    expect(runs[0]?.scheduler).toBeDefined()
    expect(runs[0]?.searchStreamLogs).toBeDefined()
    // A stack deployed before the figures: the account checks say so (SKIP).
    expect(runs[0]).toMatchObject({ bedrockModels: [], concurrency: 'unknown', alarms: 'unknown' })
    expect(runs[0]?.searchRouterLogs).toBeUndefined()
    expect(runs[0]?.invokeModel).toBeDefined()
    expect(out).toEqual([
      'PASS answer    answered',
      'FAIL timer     never fired',
      'OK: 2 passed, 0 failed, 0 skipped (session a2-verify-x at https://abc.execute-api.eu-west-1.amazonaws.com/prod/agent)',
    ])
  })

  it("gives the alarms and router checks the stack's alarm figures and the router's log group", async () => {
    const alarms = { count: 21, metrics: 22, notifying: 0 }
    const { io, runs } = command([
      agentOutput('Support/Agent', { routerLogGroup: 'router-logs', alarms }),
    ])
    await verifyCommand(['--stack', 'Support', '--region', 'eu-west-1'], io)
    expect(runs[0]?.alarms).toEqual(alarms)
    expect(runs[0]?.searchRouterLogs).toBeDefined()
  })

  it('exits 1 when a check fails, and prints one JSON report with --json', async () => {
    const { io, out } = command([])
    expect(await verifyCommand(['--url', 'http://127.0.0.1:3000/agent', '--json'], io)).toBe(1)
    expect(out).toHaveLength(1)
    expect(JSON.parse(out[0] as string)).toMatchObject({ ok: false, failed: 1, results: [{}, {}] })
  })

  it('checks a URL alone over HTTP only: no AWS resources, so no timer or closed check can run', async () => {
    const { io, runs, regions } = command([])
    await verifyCommand(['--url', 'http://127.0.0.1:3000/agent', '--header', 'x-user-id: u1'], io)
    expect(regions).toEqual([])
    expect(runs[0]).toMatchObject({
      url: 'http://127.0.0.1:3000/agent',
      headers: [['x-user-id', 'u1']],
    })
    expect(runs[0]?.scheduler).toBeUndefined()
    expect(runs[0]?.searchStreamLogs).toBeUndefined()
  })

  it('exits 2 without running anything when the arguments are wrong or the stack names no single agent', async () => {
    const usage = command([])
    expect(await verifyCommand(['--only', 'answer'], usage.io)).toBe(2)
    expect(usage.err[0]).toMatch(
      /^a2-aws verify: Name the agent: --stack <name> or --url <agent url>\n\nUsage:/,
    )

    const several = command([agentOutput('Shop/Sales'), agentOutput('Shop/Help')])
    expect(await verifyCommand(['--stack', 'Shop'], several.io)).toBe(2)
    expect(several.err).toEqual([
      'a2-aws verify: Stack Shop holds 2 agents; pick one with --agent: Shop/Sales (output SalesVerifyConfig1A2B), Shop/Help (output HelpVerifyConfig1A2B)',
    ])
    expect([...usage.runs, ...several.runs]).toEqual([])
  })
})
