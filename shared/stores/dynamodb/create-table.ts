import {
  CreateTableCommand,
  type DynamoDBClient,
  UpdateTimeToLiveCommand,
  waitUntilTableExists,
} from '@aws-sdk/client-dynamodb'
import { isAwsError } from './aws-error.ts'
import { PK, SK, TTL_ATTRIBUTE } from './table-keys.ts'

/**
 * Creates the event log table as the CDK construct deploys it (on demand, with
 * a stream of new images, and a TTL attribute), for local runs and tests.
 * An existing table is left as it is.
 */
export async function createEventLogTable(
  client: DynamoDBClient,
  tableName: string,
): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: PK, AttributeType: 'S' },
          { AttributeName: SK, AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: PK, KeyType: 'HASH' },
          { AttributeName: SK, KeyType: 'RANGE' },
        ],
        StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' },
      }),
    )
  } catch (error) {
    if (isAwsError(error, 'ResourceInUseException')) return
    throw error
  }
  await waitUntilTableExists({ client, maxWaitTime: 120, minDelay: 1 }, { TableName: tableName })
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: tableName,
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    }),
  )
}
