import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { afterAll, describe, expect, it } from 'vitest'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { awsClientConfig, eventLogTableForSuite } from '../../../support/aws.ts'

const table = eventLogTableForSuite()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A client of its own whose `Query` requests are counted. */
function countingClient() {
  const client = new DynamoDBClient(awsClientConfig())
  let queries = 0
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'QueryCommand') queries++
      return next(args)
    },
    { step: 'initialize', name: 'countQueries' },
  )
  return { client, queries: () => queries }
}

const clients: DynamoDBClient[] = []
afterAll(() => {
  for (const client of clients) client.destroy()
})

describe('a live tail on DynamoDB', () => {
  it("reads on the writer's rhythm: a step streaming a batch every 250 ms costs about a Query a batch, not five", async () => {
    const writer = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    const reader = countingClient()
    clients.push(reader.client)
    const store = dynamoDBEventStore({ client: reader.client, tableName: table.tableName() })
    const sessionId = `tail-${Date.now()}`
    await writer.append(sessionId, [{ id: 'e0', type: 'app.note', payload: {} }])

    const abort = new AbortController()
    const seen: number[] = []
    const tailing = (async () => {
      for await (const event of store.tail(sessionId, { signal: abort.signal })) {
        seen.push(event.index)
        if (event.index === 13) return
      }
    })()
    // Twelve progress batches 250 ms apart: a 3 s model step.
    for (let n = 1; n <= 12; n++) {
      await sleep(250)
      await writer.append(sessionId, [{ id: `e${n}`, type: 'app.note', payload: {} }])
    }
    await tailing
    abort.abort()
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13])
    // Reading again at once after each batch and backing off from 25 ms took
    // about four a batch (49 here); on the writer's rhythm, one or two.
    expect(reader.queries()).toBeLessThanOrEqual(26)
  }, 30_000)
})
