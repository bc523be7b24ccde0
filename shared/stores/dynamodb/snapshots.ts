import {
  type DynamoDBClient,
  GetItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb'
import type { EventStore, StoredSnapshot } from '../../log/event-store.ts'
import { MAX_EVENT_BYTES } from '../../log/limits.ts'
import { decodePayload, encodePayload } from '../payload-codec.ts'
import { isAwsError } from './aws-error.ts'
import {
  HEAD_LIFE_ATTRIBUTE,
  HEAD_SK,
  LIFE_ATTRIBUTE,
  PK,
  sessionItemKey,
  snapshotSk,
} from './table-keys.ts'

/**
 * Reducer snapshots on the event log table: one item per reducer in the
 * session's partition (`i`, the index it folds to, and the state as `p` or
 * gzipped `pz`). A snapshot is a cache: an unreadable one is no snapshot, a
 * newer one is never replaced by an older one, one too large for an item is
 * not stored, and neither is one for a session whose log does not reach it.
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
        const life = Item[LIFE_ATTRIBUTE]?.S
        return {
          index: Number(Item.i?.N),
          state: decodePayload({ json: Item.p?.S, gzip: Item.pz?.B }),
          ...(life === undefined ? {} : { life }),
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
      const index = { ':index': { N: String(snapshot.index) } }
      const life = snapshot.life ?? ''
      // Written only while the session's head is in the snapshot's life and
      // reaches its index, in one transaction: a write still in flight when
      // an erase (or retention's sweep) removed the head, or of a life ended
      // since, finds none and stores nothing, so no stale state outlives its
      // life. Cost: a transaction bills every item
      // twice, so a snapshot of n KB takes 2n + 2 WCU instead of n (the check
      // on the small head is 2); written once per 100 events folded
      // (DEFAULT_SNAPSHOT_EVERY), whose appends cost at least 4 WCU each.
      // The alternative, readers ignoring a stale snapshot, costs nothing but
      // leaves the erased session's state in the table.
      try {
        await client.send(
          new TransactWriteItemsCommand({
            TransactItems: [
              {
                ConditionCheck: {
                  TableName: tableName,
                  Key: sessionItemKey(sessionId, HEAD_SK),
                  ConditionExpression: `lastIndex >= :index AND ${life === '' ? 'attribute_not_exists(#life)' : '#life = :life'}`,
                  ExpressionAttributeNames: { '#life': HEAD_LIFE_ATTRIBUTE },
                  ExpressionAttributeValues: {
                    ...index,
                    ...(life === '' ? {} : { ':life': { S: life } }),
                  },
                },
              },
              {
                Put: {
                  TableName: tableName,
                  Item: {
                    ...sessionItemKey(sessionId, snapshotSk(reducerName)),
                    i: { N: String(snapshot.index) },
                    ...(life === '' ? {} : { [LIFE_ATTRIBUTE]: { S: life } }),
                    ts: { N: String(now()) },
                    ...(state.kind === 'gzip'
                      ? { pz: { B: state.data } }
                      : { p: { S: state.json } }),
                  },
                  ConditionExpression: 'attribute_not_exists(#pk) OR i < :index',
                  ExpressionAttributeNames: { '#pk': PK },
                  ExpressionAttributeValues: index,
                },
              },
            ],
          }),
        )
      } catch (error) {
        // No head (erased, expired), a log short of the index, a newer
        // snapshot stored, or an append touching the head at that moment: a
        // cache skips the write.
        if (!isAwsError(error, 'TransactionCanceledException')) throw error
      }
    },
  }
}
