import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb'
import {
  DescribeStreamCommand,
  type DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from '@aws-sdk/client-dynamodb-streams'
import type { DynamoDBRecord } from 'aws-lambda'
import { ROUTER_STREAM } from '../../../shared/aws/pipeline-functions.ts'
import { matchesFilterPattern, ROUTER_FILTER_PATTERNS } from '../../../shared/aws/stream-filter.ts'
import type { RunnerContext } from './runner-context.ts'
import type { StreamPositions } from './stream-position.ts'

/**
 * Per shard: where the mapping resumes after a failure or a restart (the
 * last record a successful invocation covered), what it has read past
 * that, and since when it has been gathering a batch (the batching window).
 */
interface ShardState {
  checkpoint?: string
  read?: string
  gathered: StreamRecord[]
  since?: number
}

/** The router's stream mapping: one poll of every shard, and what it holds back. */
export interface StreamMapping {
  /** Polls each shard once, invoking the router for a batch that is due; true when it read records. */
  poll(): Promise<boolean>
  /** Records held for the batching window (not yet invoked). */
  gathering(): number
}

/**
 * The table's stream, as the DynamoDB event source mapping reads it, from
 * where the last run left off (Lambda keeps a mapping's position): `saved`,
 * the shards' checkpoints `positions` kept.
 */
export function streamMapping(
  context: RunnerContext,
  streams: DynamoDBStreamsClient,
  {
    streamArn,
    saved,
    positions,
  }: {
    streamArn: string
    saved: Record<string, string>
    positions: StreamPositions | undefined
  },
): StreamMapping {
  const shards = new Map<string, ShardState>()
  let savedText = JSON.stringify(saved)
  /** Keeps the shards' checkpoints (never what is only read or gathered: that is read again). */
  const savePositions = () => {
    if (!positions) return
    const kept: Record<string, string> = {}
    for (const [shardId, { checkpoint }] of shards) if (checkpoint) kept[shardId] = checkpoint
    const text = JSON.stringify(kept)
    if (text === savedText) return
    positions.write(streamArn, kept)
    savedText = text
  }
  return {
    async poll() {
      const { StreamDescription } = await streams.send(
        new DescribeStreamCommand({ StreamArn: streamArn }),
      )
      let busy = false
      for (const shard of StreamDescription?.Shards ?? []) {
        const shardId = shard.ShardId as string
        const resumeAt = saved[shardId]
        const state = shards.get(shardId) ?? {
          gathered: [],
          ...(resumeAt ? { checkpoint: resumeAt } : {}),
        }
        shards.set(shardId, state)
        const read = await readShard(streams, streamArn, shardId, state)
        if (read === 'no iterator') continue
        if (read === 'records') busy = true
        if (state.gathered.length > 0) await invokeRouter(context, state)
      }
      savePositions()
      return busy
    },
    gathering: () => [...shards.values()].reduce((sum, shard) => sum + shard.gathered.length, 0),
  }
}

/**
 * Reads the shard on from where it is, gathering what the mapping's filter
 * lets through: whether it found records, or no iterator (the shard is
 * left alone this poll, what it gathered included).
 */
async function readShard(
  streams: DynamoDBStreamsClient,
  streamArn: string,
  shardId: string,
  state: ShardState,
): Promise<'records' | 'none' | 'no iterator'> {
  const after = state.read ?? state.checkpoint
  const { ShardIterator } = await streams.send(
    new GetShardIteratorCommand({
      StreamArn: streamArn,
      ShardId: shardId,
      ...(after
        ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after }
        : { ShardIteratorType: 'TRIM_HORIZON' }),
    }),
  )
  if (!ShardIterator) return 'no iterator'
  const { Records = [] } = await streams.send(
    new GetRecordsCommand({ ShardIterator, Limit: ROUTER_STREAM.batchSize }),
  )
  if (Records.length === 0) return 'none'
  state.read = Records.at(-1)?.dynamodb?.SequenceNumber ?? state.read
  // The event source mapping's filter runs before any invocation.
  for (const record of Records) {
    if (
      ROUTER_FILTER_PATTERNS.some((pattern) =>
        matchesFilterPattern(lambdaStreamRecord(record), pattern),
      )
    ) {
      state.gathered.push(record)
      state.since ??= Date.now()
    }
  }
  if (state.gathered.length === 0) state.checkpoint = state.read
  return 'records'
}

/**
 * As Lambda does: invokes the router once the batching window has passed
 * since the batch's first record, or when the batch is full, and moves the
 * checkpoint past what it handled (to the first failed record).
 */
async function invokeRouter(
  { handlers, stats, idle }: RunnerContext,
  state: ShardState,
): Promise<void> {
  // As deployed: the mapping gathers for its batching window.
  const windowMs = ROUTER_STREAM.maxBatchingWindowSeconds * 1000
  const full = state.gathered.length >= ROUTER_STREAM.batchSize
  if (!full && Date.now() - (state.since ?? 0) < windowMs) {
    // Gathering: look again soon, without waking every other poller.
    idle.found('stream')
    return
  }
  const batch = state.gathered.splice(0, ROUTER_STREAM.batchSize)
  state.since = state.gathered.length > 0 ? Date.now() : undefined
  stats.routerInvocations++
  const result = await handlers.router({ Records: batch.map(lambdaStreamRecord) })
  const failed = result.batchItemFailures[0]?.itemIdentifier
  const position = failed
    ? batch.findIndex((record) => record.dynamodb?.SequenceNumber === failed)
    : -1
  if (position === -1) {
    // Records the filter dropped after the batch's last are covered too.
    state.checkpoint =
      state.gathered.length > 0 ? batch.at(-1)?.dynamodb?.SequenceNumber : state.read
    return
  }
  // Resume at the first failed record, as Lambda does: read it again.
  if (position > 0) state.checkpoint = batch[position - 1]?.dynamodb?.SequenceNumber
  state.read = undefined
  state.gathered = []
  state.since = undefined
}

export async function tableStreamArn(dynamodb: DynamoDBClient, tableName: string): Promise<string> {
  const { Table } = await dynamodb.send(new DescribeTableCommand({ TableName: tableName }))
  if (!Table?.LatestStreamArn) throw new Error(`Table ${tableName} has no stream`)
  return Table.LatestStreamArn
}

/** A stream record as Lambda hands it over: attribute values as JSON, binaries as base64. */
function lambdaStreamRecord(record: StreamRecord): DynamoDBRecord {
  const image = record.dynamodb?.NewImage
  return {
    eventID: record.eventID as string,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventSource: 'aws:dynamodb',
    ...(record.userIdentity ? { userIdentity: record.userIdentity } : {}),
    dynamodb: {
      SequenceNumber: record.dynamodb?.SequenceNumber as string,
      Keys: record.dynamodb?.Keys as never,
      ...(image ? { NewImage: lambdaImage(image as Record<string, AttributeValue>) } : {}),
    },
  }
}

function lambdaImage(
  image: Record<string, AttributeValue>,
): NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']> {
  return Object.fromEntries(
    Object.entries(image).map(([name, value]) => [
      name,
      value.B !== undefined ? { B: Buffer.from(value.B).toString('base64') } : (value as never),
    ]),
  )
}
