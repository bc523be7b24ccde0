import { PutItemCommand } from '@aws-sdk/client-dynamodb'
import { dynamoDBEventStore } from '../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { PK, SK, sessionPk, snapshotSk } from '../../shared/stores/dynamodb/table-keys.ts'
import { describeEventStoreConformance } from '../conformance/event-store.conformance.ts'
import { eventLogTableForSuite } from '../support/aws.ts'

const table = eventLogTableForSuite()

describeEventStoreConformance('DynamoDB store', () => ({
  store: dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
  async corruptSnapshot(sessionId, reducerName) {
    await table.client().send(
      new PutItemCommand({
        TableName: table.tableName(),
        Item: {
          [PK]: { S: sessionPk(sessionId) },
          [SK]: { S: snapshotSk(reducerName) },
          i: { N: '2' },
          pz: { B: new Uint8Array([1, 2, 3, 4]) },
        },
      }),
    )
  },
}))
