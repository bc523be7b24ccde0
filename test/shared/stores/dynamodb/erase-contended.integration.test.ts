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

/**
 * A forced erase of a long session while a step still streams into it
 * elsewhere (issue 37, case 5): the erase reads the guards of every event,
 * O(n), and a seal past the end computed before those reads lost every
 * round to four progress puts a second. The seal goes first, and moves on
 * past what landed meanwhile: the erase wins at once.
 */
describe('DynamoDB store: a forced erase of a long session while a step streams', () => {
  it('erases a 400-event session while another process writes its progress four times a second', async () => {
    const client = new DynamoDBClient(awsClientConfig())
    try {
      const tableName = `a2-erase-${randomUUID()}`
      await createEventLogTable(client, tableName)
      const streaming = dynamoDBEventStore({ client, tableName })
      const s = `long-${randomUUID()}`
      const note = (): NewEvent => ({ id: randomUUID(), type: 'note.added', payload: {} })
      for (let batch = 0; batch < 10; batch++)
        await streaming.append(s, Array.from({ length: 40 }, note))
      const life = (await streaming.read(s, { after: 399 }))[0]?.life as string
      // The step elsewhere: a progress put every 250 ms at the index it knows.
      let known = 400
      let stopped: unknown
      const step = (async () => {
        for (;;) {
          try {
            const { events } = await streaming.append(
              s,
              [{ id: randomUUID(), type: 'ai.generation.progress', payload: { n: known } }],
              { expectedIndex: known, guardIds: false, progress: true, life },
            )
            known = events.at(-1)?.index ?? known
          } catch (error) {
            stopped = error
            return
          }
          await new Promise((resolve) => setTimeout(resolve, 250))
        }
      })()
      await new Promise((resolve) => setTimeout(resolve, 600))
      const receipt = await dynamoDBEventStore({ client, tableName }).erase(s)
      await step
      expect(receipt.events).toBeGreaterThanOrEqual(402)
      expect(receipt.heads).toBe(1)
      // The step's next write found its life over; nothing of it is left.
      expect(stopped).toMatchObject({ code: 'LIFE_ENDED' })
      expect(await streaming.read(s)).toEqual([])
      expect(await streaming.head(s)).toBe(0)
    } finally {
      client.destroy()
    }
  }, 60_000)
})
