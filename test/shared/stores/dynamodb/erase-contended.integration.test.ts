import { randomUUID } from 'node:crypto'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { afterEach, describe, expect, it } from 'vitest'
import type { NewEvent } from '../../../../shared/index.ts'
import { createEventLogTable } from '../../../../shared/stores/dynamodb/create-table.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { HEAD_SK } from '../../../../shared/stores/dynamodb/table-keys.ts'
import { awsClientConfig } from '../../../support/aws.ts'

/**
 * An erase that keeps meeting new writes gives up after its rounds with a
 * typed error (ERASE_CONTENDED), not a raw AWS exception or a plain Error,
 * and what it erased stays erased. The writes that beat it are played by the
 * conditions they make fail, on moto: the head's conditional delete (an
 * append moved the head) or the tombstone past the end (a step's progress
 * took that index).
 */
describe('DynamoDB store: an erase that keeps losing to writes', () => {
  const clients: DynamoDBClient[] = []
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy()
  })

  async function sessionUnderWrites(failing: (command: string, input: unknown) => boolean) {
    const client = new DynamoDBClient(awsClientConfig())
    clients.push(client)
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (failing(String(context.commandName), (args as { input?: unknown }).input)) {
          const error = new Error('The conditional request failed')
          error.name = 'ConditionalCheckFailedException'
          throw error
        }
        return next(args)
      },
      { step: 'initialize' },
    )
    const tableName = `a2-erase-${randomUUID()}`
    await createEventLogTable(client, tableName)
    const store = dynamoDBEventStore({ client, tableName })
    const note = (): NewEvent => ({ id: randomUUID(), type: 'note.added', payload: {} })
    await store.append('s', [note(), note()])
    return store
  }

  it('whose head keeps moving answers ERASE_CONTENDED, its events already tombstones', async () => {
    const store = await sessionUnderWrites(
      (command, input) =>
        command === 'DeleteItemCommand' &&
        (input as { Key?: { sk?: { S?: string } } }).Key?.sk?.S === HEAD_SK,
    )
    await expect(store.erase('s')).rejects.toMatchObject({
      code: 'ERASE_CONTENDED',
      name: 'EraseContendedError',
      sessionId: 's',
      rounds: 5,
    })
    expect(await store.read('s')).toEqual([])
  })

  it('whose end keeps growing answers ERASE_CONTENDED before it erased anything', async () => {
    const store = await sessionUnderWrites(
      (command, input) =>
        command === 'PutItemCommand' &&
        (input as { Item?: Record<string, unknown> }).Item?.erased !== undefined,
    )
    await expect(store.erase('s')).rejects.toMatchObject({ code: 'ERASE_CONTENDED', rounds: 5 })
    expect((await store.read('s')).map((event) => event.index)).toEqual([1, 2])
  })
})
