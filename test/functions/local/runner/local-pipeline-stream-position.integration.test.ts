import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb'
import {
  DescribeStreamCommand,
  GetRecordsCommand,
  GetShardIteratorCommand,
} from '@aws-sdk/client-dynamodb-streams'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  type LocalPipeline,
  startLocalPipeline,
} from '../../../../functions/local/runner/local-pipeline.ts'
import { createLocalResources } from '../../../../functions/local/runner/resources.ts'
import { fileStreamPositions } from '../../../../functions/local/runner/stream-position.ts'
import { type Agent, agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { awsAgentParts } from '../../../../shared/aws/agent-environment.ts'
import type { AwsEnvironment } from '../../../../shared/aws/environment-variables.ts'
import type { EventStore } from '../../../../shared/log/event-store.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { resetMotoForSuite } from '../../../support/aws.ts'
import { pipelineClients, silent } from '../../../support/pipeline.ts'
import { until } from '../../../support/until.ts'

// A Lambda event source mapping keeps its stream position: it never invokes
// the router again with records it has covered, and misses nothing written
// while no function ran. The runner keeps its position in a file
// (`npm run local`: .a2-local/stream-position.json), so a runner stopped (or
// killed) and started again on the same endpoint does the same. Messages
// here are written by a writer that sends no wake-up (as `a2-aws import`
// does), so only the router can wake their session.

const path = join(mkdtempSync(join(tmpdir(), 'a2-stream-position-')), 'stream-position.json')
let environment: AwsEnvironment | undefined
let queues: Awaited<ReturnType<typeof createLocalResources>>['queues'] | undefined
let assistant: Agent | undefined
let raw: EventStore | undefined
let streamArn = ''
const agentClients = pipelineClients()
/** The wake-ups each runner's router sent, by runner. */
const routed: string[][] = []

beforeAll(async () => {
  await resetMotoForSuite()
  const prefix = `a2-position-${Date.now().toString(36)}`
  ;({ environment, queues } = await createLocalResources(agentClients, { prefix }))
  const aws = awsAgentParts({ environment, clients: agentClients })
  assistant = agent({
    name: 'support-agent',
    model: scriptedModel(() => text('Awake.')).model,
    logger: silent,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
  })
  raw = dynamoDBEventStore({ client: agentClients.dynamodb, tableName: environment.tableName })
  const { Table } = await agentClients.dynamodb.send(
    new DescribeTableCommand({ TableName: environment.tableName }),
  )
  streamArn = Table?.LatestStreamArn as string
})

/** A runner of its own clients, keeping its position in `path`; its router's sends are recorded. */
async function startRunner(): Promise<LocalPipeline> {
  const clients = pipelineClients()
  const sent: string[] = []
  routed.push(sent)
  // The runner's SQS client sends only the router's wake-ups (and leases):
  // the lanes send theirs through the agent's own clients.
  clients.sqs.middlewareStack.add(
    (next) => (args) => {
      const { Entries } = (args.input ?? {}) as { Entries?: { MessageBody?: string }[] }
      for (const entry of Entries ?? []) if (entry.MessageBody) sent.push(entry.MessageBody)
      return next(args)
    },
    { step: 'initialize' },
  )
  return startLocalPipeline({
    agentModule: { default: assistant },
    environment: environment as AwsEnvironment,
    queues: queues as NonNullable<typeof queues>,
    clients,
    logger: silent,
    auth: { type: 'none' },
    streamPositions: fileStreamPositions(path),
  })
}

async function answerOf(sessionId: string): Promise<string> {
  const { state } = await (assistant as Agent).session(sessionId).state()
  const reply = state.messages.find((message) => message.role === 'assistant')
  return (reply?.parts ?? []).map((part) => (part.type === 'text' ? part.text : '')).join('')
}

/** Writes a user's message the way an import does: no wake-up is sent. */
async function writeMessage(sessionId: string): Promise<void> {
  const message = {
    id: `${sessionId}-m1`,
    role: 'user' as const,
    parts: [{ type: 'text' as const, text: 'Hi' }],
  }
  // A new input's event ID is its message ID, as the agent's own appends give it.
  const events = inputs.message(message).map((event) => ({ ...event, id: message.id }))
  await (raw as EventStore).append(sessionId, events)
}

/** The sequence number of the stream's last record. */
async function lastSequenceNumber(): Promise<string | undefined> {
  const { StreamDescription } = await agentClients.streams.send(
    new DescribeStreamCommand({ StreamArn: streamArn }),
  )
  const shardId = StreamDescription?.Shards?.[0]?.ShardId as string
  let { ShardIterator } = await agentClients.streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: shardId,
      ShardIteratorType: 'TRIM_HORIZON',
    }),
  )
  let last: string | undefined
  while (ShardIterator) {
    const page = await agentClients.streams.send(
      new GetRecordsCommand({ ShardIterator, Limit: 1000 }),
    )
    if (!page.Records?.length) break
    last = page.Records.at(-1)?.dynamodb?.SequenceNumber
    ShardIterator = page.NextShardIterator
  }
  return last
}

describe("npm run local keeps its stream position across restarts, as Lambda keeps a mapping's", () => {
  it("Given a runner that routed a session's records and stopped, When it starts again on the same endpoint, Then it routes none of them again and answers a message written while it was down", async () => {
    // Written before any runner ran: the first reads the stream from its start.
    await writeMessage('before')
    const first = await startRunner()
    await expect.poll(() => answerOf('before'), { timeout: 30_000, interval: 100 }).toBe('Awake.')
    // The turn is over and its router has covered the whole stream.
    await until(async () => {
      const position = fileStreamPositions(path).read(streamArn)
      const last = await lastSequenceNumber()
      return last !== undefined && Object.values(position).includes(last)
    }, 30_000).catch(() => {
      throw new Error(`the first runner kept no position at the stream's last record in ${path}`)
    })
    await first.stop()
    expect(routed[0]?.some((body) => body.includes('"sessionId":"before"'))).toBe(true)

    await writeMessage('while-down')
    const second = await startRunner()
    await expect
      .poll(() => answerOf('while-down'), { timeout: 30_000, interval: 100 })
      .toBe('Awake.')
    await second.stop()
    // Read on from the first runner's position: nothing of the first
    // session again (from its start, it sent all of its wake-ups again).
    expect(routed[1]?.filter((body) => body.includes('"sessionId":"before"'))).toEqual([])
    expect(routed[1]?.some((body) => body.includes('"sessionId":"while-down"'))).toBe(true)
  }, 90_000)
})
