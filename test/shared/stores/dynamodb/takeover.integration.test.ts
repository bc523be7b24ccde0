import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'
import { describeTakeovers } from '../../../support/takeover-cases.ts'

// The takeover rule, on DynamoDB (the memory store: lanes/takeover.test.ts).
const table = eventLogTableForSuite()
describeTakeovers('the takeover rule on the DynamoDB store', () =>
  dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
)
