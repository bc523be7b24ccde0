import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { resetMoto, startMotoServer } from '../../functions/local/runner/moto-server.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import { createEventLogTable } from '../../shared/stores/dynamodb/create-table.ts'
import { dynamoDBEventStore } from '../../shared/stores/dynamodb/dynamodb-event-store.ts'
import type { SimulationOptions } from '../../shared/testing/simulator/index.ts'
import {
  awsServiceError,
  requestTimeout,
  THROTTLING_ERRORS,
} from '../../shared/testing/simulator/store-faults.ts'

type StoreOption = NonNullable<SimulationOptions['store']>
type Faults = Parameters<StoreOption>[1]

const WRITES = new Set([
  'TransactWriteItemsCommand',
  'UpdateItemCommand',
  'PutItemCommand',
  'DeleteItemCommand',
])

/** The DynamoDB store's module (the product's, or a put-back copy's). */
interface DynamoDBStoreModule {
  dynamoDBEventStore: typeof dynamoDBEventStore
}

/**
 * The DynamoDB store on moto for `simulate({ store })`, an instance per
 * process over one table (each with its own hints of the sessions it
 * served, as each Lambda container or server has), its faults injected
 * where the adapter meets them: in the SDK client's middleware, inside the
 * SDK's retries. A throttling exception is retried by the SDK and surfaces
 * only when every attempt was throttled; a `TransactionConflict`
 * cancellation, and a `TransactionConflictException` on a lone `PutItem` (a
 * step's progress), reach the adapter, since the SDK retries neither; a
 * `TimeoutError` after the request committed makes the SDK send it again,
 * and the adapter reads the second answer (a replay, a moved head, a held
 * claim).
 */
export async function dynamodbOnMoto(
  module: DynamoDBStoreModule = { dynamoDBEventStore },
): Promise<{ store: StoreOption; close(): void }> {
  const moto = await startMotoServer()
  let table = 0
  const clients: DynamoDBClient[] = []
  return {
    async store(now, faults) {
      await resetMoto(moto.endpoint)
      const client = new DynamoDBClient({
        endpoint: moto.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
        maxAttempts: 3,
      })
      clients.push(client)
      const tableName = `sim-${++table}`
      await createEventLogTable(client, tableName)
      withFaults(client, faults)
      const instance = () =>
        module.dynamoDBEventStore({ client, tableName, now, appendRetryMs: 2_000 }) as EventStore
      return { store: instance(), instance }
    },
    close() {
      for (const client of clients) client.destroy()
      moto.stop()
    },
  }
}

function withFaults(client: DynamoDBClient, faults: Faults): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? ''
      if (faults.strikes('store.throttled')) {
        const [name, message] = faults.pick(THROTTLING_ERRORS)
        throw awsServiceError(name, message)
      }
      const input = (args as { input?: { TransactItems?: unknown[] } }).input
      if (command === 'TransactWriteItemsCommand' && faults.strikes('store.transaction-conflict')) {
        const items = input?.TransactItems?.length ?? 1
        const reasons = Array.from({ length: items }, (_, n) => ({
          Code: n === items - 1 ? 'TransactionConflict' : 'None',
        }))
        throw Object.assign(
          awsServiceError(
            'TransactionCanceledException',
            `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
          ),
          { CancellationReasons: reasons },
        )
      }
      // A lone write to an item a transaction holds at that moment (a
      // step's progress put beside another writer's append).
      if (command === 'PutItemCommand' && faults.strikes('store.transaction-conflict')) {
        throw awsServiceError('TransactionConflictException', 'Transaction is ongoing for the item')
      }
      const output = await next(args)
      if (
        WRITES.has(command) &&
        (faults.strikes('store.timeout-after-commit') ||
          faults.strikes('store.retried-after-commit'))
      ) {
        throw requestTimeout()
      }
      return output
    },
    { step: 'deserialize', name: 'simulatedDynamoDBFaults' },
  )
}
