import { type AttributeValue, type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb'
import { HEAD_SK, PK, SESSION_PK_PREFIX, SK } from './table-keys.ts'

/**
 * Up to `limit` session IDs of a table, found by a Scan of the session head
 * items (every session with events has one; an erased one has none), in
 * the table's order, not by time. A sample for an operator's check, not a
 * listing an agent ever needs: it reads the table page by page (one page
 * reads up to 1 MB of items, most of them events the filter drops).
 *
 * @example
 * const ids = await sessionIdsOf(client, 'a2-events', { limit: 200 })
 */
export async function sessionIdsOf(
  client: Pick<DynamoDBClient, 'send'>,
  tableName: string,
  { limit }: { limit: number },
): Promise<string[]> {
  const ids: string[] = []
  let start: Record<string, AttributeValue> | undefined
  do {
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        FilterExpression: '#sk = :head',
        ProjectionExpression: '#pk',
        ExpressionAttributeNames: { '#pk': PK, '#sk': SK },
        ExpressionAttributeValues: { ':head': { S: HEAD_SK } },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    )
    for (const item of page.Items ?? []) {
      const pk = item[PK]?.S
      if (pk?.startsWith(SESSION_PK_PREFIX)) ids.push(pk.slice(SESSION_PK_PREFIX.length))
      if (ids.length >= limit) return ids
    }
    start = page.LastEvaluatedKey
  } while (start)
  return ids
}
