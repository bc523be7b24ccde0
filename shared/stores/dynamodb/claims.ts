import {
  type AttributeValue,
  type ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb'
import { ClaimHeldError, FencedOutError } from '../../log/errors.ts'
import type { Claim, ClaimOptions, EventStore } from '../../log/event-store.ts'
import { isAwsError } from './aws-error.ts'
import {
  CLAIM_ITEM_RETENTION_SECONDS,
  CLAIM_UNTIL_ATTRIBUTE,
  claimSk,
  sessionItemKey,
  TTL_ATTRIBUTE,
} from './table-keys.ts'

type ClaimMethods = Pick<
  EventStore,
  'claim' | 'readClaim' | 'renewClaim' | 'releaseClaim' | 'revokeClaim'
>

/**
 * Claims on the event log table: one item per claim key in the session's
 * partition, taken by a conditional `UpdateItem` when it is free or expired,
 * which adds one to its `attempt`. Appends of an attempt carry a
 * `ConditionCheck` on that attempt (the fence), so a superseded attempt's
 * late writes are refused.
 */
export function dynamoDBClaims(
  client: DynamoDBClient,
  tableName: string,
  now: () => number,
): ClaimMethods {
  const claimKey = (sessionId: string, key: string) => sessionItemKey(sessionId, claimSk(key))

  async function readClaim(sessionId: string, key: string): Promise<Claim | undefined> {
    const { Item } = await client.send(
      new GetItemCommand({
        TableName: tableName,
        Key: claimKey(sessionId, key),
        ConsistentRead: true,
      }),
    )
    return Item ? claimFromItem(key, Item) : undefined
  }

  return {
    readClaim,

    async claim(sessionId: string, key: string, { ttlMs }: ClaimOptions): Promise<Claim> {
      const at = now()
      try {
        const { Attributes } = await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: claimKey(sessionId, key),
            UpdateExpression: `SET attempt = if_not_exists(attempt, :zero) + :one, #until = :until, #ttl = :ttl`,
            ConditionExpression: 'attribute_not_exists(attempt) OR #until <= :now',
            ExpressionAttributeNames: CLAIM_NAMES,
            ExpressionAttributeValues: {
              ':zero': { N: '0' },
              ':one': { N: '1' },
              ':until': { N: String(at + ttlMs) },
              ':now': { N: String(at) },
              ':ttl': { N: String(claimItemExpiry(at + ttlMs)) },
            },
            ReturnValues: 'ALL_OLD',
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        )
        const claim: Claim = {
          key,
          attempt: Number(Attributes?.attempt?.N ?? 0) + 1,
          expiresAt: at + ttlMs,
        }
        if (Attributes?.attempt === undefined) return claim
        const ended = Attributes.ended?.S
        return {
          ...claim,
          previous: ended === 'released' || ended === 'revoked' ? ended : 'expired',
        }
      } catch (error) {
        if (!isAwsError<ConditionalCheckFailedException>(error, 'ConditionalCheckFailedException'))
          throw error
        const held = error.Item ? claimFromItem(key, error.Item) : await readClaim(sessionId, key)
        throw new ClaimHeldError(sessionId, key, held?.attempt ?? 0, held?.expiresAt ?? at)
      }
    },

    async releaseClaim(sessionId: string, claim: Claim): Promise<void> {
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: claimKey(sessionId, claim.key),
            UpdateExpression: 'SET #until = :zero, #ttl = :ttl, ended = :released',
            ConditionExpression: 'attempt = :attempt',
            ExpressionAttributeNames: CLAIM_NAMES,
            ExpressionAttributeValues: {
              ':zero': { N: '0' },
              ':released': { S: 'released' },
              ':attempt': { N: String(claim.attempt) },
              ':ttl': { N: String(claimItemExpiry(now())) },
            },
          }),
        )
      } catch (error) {
        if (!isAwsError(error, 'ConditionalCheckFailedException')) throw error
      }
    },

    async revokeClaim(sessionId: string, key: string): Promise<void> {
      await client.send(
        new UpdateItemCommand({
          TableName: tableName,
          Key: claimKey(sessionId, key),
          UpdateExpression:
            'SET attempt = if_not_exists(attempt, :zero) + :one, #until = :zero, #ttl = :ttl, ended = :revoked',
          ExpressionAttributeNames: CLAIM_NAMES,
          ExpressionAttributeValues: {
            ':zero': { N: '0' },
            ':one': { N: '1' },
            ':revoked': { S: 'revoked' },
            ':ttl': { N: String(claimItemExpiry(now())) },
          },
        }),
      )
    },

    async renewClaim(sessionId: string, claim: Claim, { ttlMs }: ClaimOptions): Promise<Claim> {
      const expiresAt = now() + ttlMs
      try {
        await client.send(
          new UpdateItemCommand({
            TableName: tableName,
            Key: claimKey(sessionId, claim.key),
            UpdateExpression: 'SET #until = :until, #ttl = :ttl',
            ConditionExpression: 'attempt = :attempt',
            ExpressionAttributeNames: CLAIM_NAMES,
            ExpressionAttributeValues: {
              ':until': { N: String(expiresAt) },
              ':attempt': { N: String(claim.attempt) },
              ':ttl': { N: String(claimItemExpiry(expiresAt)) },
            },
          }),
        )
        return { ...claim, expiresAt }
      } catch (error) {
        if (!isAwsError(error, 'ConditionalCheckFailedException')) throw error
        throw new FencedOutError(sessionId, claim.key, claim.attempt)
      }
    },
  }
}

/**
 * A claim item holds its claim's expiry in epoch milliseconds (`until`) and,
 * apart, the table's TTL attribute in epoch seconds, which DynamoDB reads as
 * seconds: a millisecond value there would never expire.
 */
const CLAIM_NAMES = { '#until': CLAIM_UNTIL_ATTRIBUTE, '#ttl': TTL_ATTRIBUTE }

/**
 * When DynamoDB may delete a claim item: a week after the claim ends. By
 * then its work has long committed its result (or been taken over), and no
 * attempt it fenced can still be writing (Lambda runs 15 minutes at most);
 * only a session left with a crashed call for a week would see that call's
 * next attempt as its first.
 */
function claimItemExpiry(untilMs: number): number {
  return Math.ceil(untilMs / 1000) + CLAIM_ITEM_RETENTION_SECONDS
}

function claimFromItem(key: string, item: Record<string, AttributeValue>): Claim {
  return {
    key,
    attempt: Number(item.attempt?.N ?? 0),
    expiresAt: Number(item[CLAIM_UNTIL_ATTRIBUTE]?.N ?? 0),
  }
}
