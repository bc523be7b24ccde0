import { type DynamoDBClient, GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb'
import type { EventStore, StoredSnapshot } from '../../log/event-store.ts'
import { MAX_EVENT_BYTES } from '../../log/limits.ts'
import { decodePayload, encodePayload } from '../payload-codec.ts'
import { isAwsError } from './aws-error.ts'
import { PK, sessionItemKey, snapshotSk } from './table-keys.ts'

/**
 * Reducer snapshots on the event log table: one item per reducer in the
 * session's partition (`i`, the index it folds to, and the state as `p` or
 * gzipped `pz`). A snapshot is a cache: an unreadable one is no snapshot, a
 * newer one is never replaced by an older one, and one too large for an item
 * is not stored.
 */
export function dynamoDBSnapshots(
  client: DynamoDBClient,
  tableName: string,
  now: () => number,
): Pick<EventStore, 'readSnapshot' | 'writeSnapshot'> {
  return {
    async readSnapshot(
      sessionId: string,
      reducerName: string,
    ): Promise<StoredSnapshot | undefined> {
      const { Item } = await client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: sessionItemKey(sessionId, snapshotSk(reducerName)),
        }),
      )
      if (!Item) return undefined
      try {
        return {
          index: Number(Item.i?.N),
          state: decodePayload({ json: Item.p?.S, gzip: Item.pz?.B }),
        }
      } catch {
        return undefined
      }
    },

    async writeSnapshot(
      sessionId: string,
      reducerName: string,
      snapshot: StoredSnapshot,
    ): Promise<void> {
      const state = encodePayload(snapshot.state)
      // A snapshot is a cache: one too large for an item is not stored, and
      // state() folds from the log instead.
      if (state.bytes > MAX_EVENT_BYTES) return
      try {
        await client.send(
          new PutItemCommand({
            TableName: tableName,
            Item: {
              ...sessionItemKey(sessionId, snapshotSk(reducerName)),
              i: { N: String(snapshot.index) },
              ts: { N: String(now()) },
              ...(state.kind === 'gzip' ? { pz: { B: state.data } } : { p: { S: state.json } }),
            },
            ConditionExpression: 'attribute_not_exists(#pk) OR i < :index',
            ExpressionAttributeNames: { '#pk': PK },
            ExpressionAttributeValues: { ':index': { N: String(snapshot.index) } },
          }),
        )
      } catch (error) {
        if (!isAwsError(error, 'ConditionalCheckFailedException')) throw error
      }
    },
  }
}
