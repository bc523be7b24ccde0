import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { inspectCommand } from '../../../../functions/cli/inspect/inspect-command.ts'
import type { InspectReport } from '../../../../functions/cli/inspect/inspect-report.ts'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { scriptedModel, text, toolCalls } from '../../../../shared/testing/scripted-model.ts'
import { track, until, userMessage } from '../../../support/agent-log.ts'
import { awsClientConfig, eventLogTableForSuite } from '../../../support/aws.ts'

// `a2-aws inspect --table`: the session read from the agent's DynamoDB table
// (on moto), with the store's own reads: Query for events, GetItem for claims.

const table = eventLogTableForSuite()

async function inspect(...argv: string[]) {
  const stdout: string[] = []
  const stderr: string[] = []
  const clients: DynamoDBClient[] = []
  const [sessionId = '', ...rest] = argv
  const code = await inspectCommand([sessionId, '--table', table.tableName(), ...rest], {
    stdout: (line) => stdout.push(line),
    stderr: (line) => stderr.push(line),
    dynamoDB: () => {
      const client = new DynamoDBClient(awsClientConfig())
      clients.push(client)
      return client
    },
  })
  for (const client of clients) client.destroy()
  return { code, stdout, stderr, text: stdout.join('\n') }
}

describe('a2-aws inspect --table (DynamoDB on moto)', () => {
  it('shows a tool at work with its claim, and a session waiting on an approval', async () => {
    let release: (() => void) | undefined
    const store = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    const a = track(
      agent({
        name: 'inspected',
        store,
        claimTtlMs: 60_000,
        model: scriptedModel([
          toolCalls({ toolCallId: 'c1', toolName: 'lookup', input: {} }),
          text('found it'),
          toolCalls({ toolCallId: 'c2', toolName: 'closeTicket', input: {} }),
        ]).model,
        tools: {
          lookup: tool({
            inputSchema: z.object({}),
            execute: () => new Promise((resolve) => (release = () => resolve({ found: true }))),
          }),
          closeTicket: tool({ inputSchema: z.object({}), execute: async () => ({ closed: true }) }),
        },
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
    )
    await a.session('busy').append(...inputs.message(userMessage('m1', 'look it up')))
    // The tool's worker takes its claim just after the call is recorded, and
    // the model step lets go of its own once the step is written: read the
    // session until both happened and the tool is running (a fixed pause
    // failed on a busy machine, and releasing a tool not yet started hung).
    let busy = await inspect('busy', '--json')
    const toolAtWork = (report: InspectReport): boolean =>
      report.diagnosis.waits.length === 1 &&
      report.diagnosis.waits[0]?.kind === 'tool' &&
      report.diagnosis.waits[0]?.claim?.state === 'held'
    await until(async () => {
      busy = await inspect('busy', '--json')
      return (
        release !== undefined &&
        busy.code === 0 &&
        toolAtWork(JSON.parse(busy.text) as InspectReport)
      )
    }, 10_000)
    expect(busy.code).toBe(0)
    const report = JSON.parse(busy.text) as InspectReport
    expect(report.source).toBe(`table ${table.tableName()}`)
    expect(report.diagnosis.status).toBe('working')
    expect(report.diagnosis.waits).toEqual([
      expect.objectContaining({
        kind: 'tool',
        toolName: 'lookup',
        claim: expect.objectContaining({ state: 'held', attempt: 1 }),
      }),
    ])
    expect(report.timeline.map((line) => line.type)).toContain('ai.tool.called')

    release?.()
    await a.runtime.idle()
    const done = await inspect('busy')
    expect(done.code).toBe(0)
    expect(done.stdout.at(-1)).toBe('status: idle (no active turn)')

    await a.session('asks').append(...inputs.message(userMessage('m2', 'close it')))
    await a.runtime.idle()
    const asks = await inspect('asks')
    expect(asks.text).toMatch(/waits on approval: an approval of tool closeTicket/)
    const diff = await inspect('asks', '--diff', '0..2')
    expect(diff.stdout).toContain('state #0 -> #2: 2 changes')
  })

  it('a table that does not exist is a source failure (exit 2), not a crash', async () => {
    const stderr: string[] = []
    const client = new DynamoDBClient(awsClientConfig())
    const code = await inspectCommand(['s1', '--table', 'no-such-table'], {
      stdout: () => {},
      stderr: (line) => stderr.push(line),
      dynamoDB: () => client,
    })
    client.destroy()
    expect(code).toBe(2)
    expect(stderr.join('\n')).toContain('Cannot read table no-such-table')
  })
})
