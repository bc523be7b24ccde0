import { randomUUID } from 'node:crypto'
import {
  type AttributeValue,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb'
import { afterEach, describe, expect, it } from 'vitest'
import { AppendConflictError, type NewEvent } from '../../../../shared/index.ts'
import { createEventLogTable } from '../../../../shared/stores/dynamodb/create-table.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import {
  eventSk,
  HEAD_SK,
  sessionItemKey,
  sessionPk,
  TOMBSTONE_RETENTION_SECONDS,
} from '../../../../shared/stores/dynamodb/table-keys.ts'
import { awsClientConfig } from '../../../support/aws.ts'

/**
 * A step's progress as one `PutItem` (issue 26): what it costs, how the head
 * item falls behind it and catches up, and why an erase still takes a step
 * that is streaming at that moment (the tombstones).
 */
describe("DynamoDB store: a step's progress written alone", () => {
  const clients: DynamoDBClient[] = []
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy()
  })

  /** A table of its own (moto copies the table for each transaction), and its requests by command. */
  async function table() {
    const client = new DynamoDBClient(awsClientConfig())
    clients.push(client)
    const sent: string[] = []
    client.middlewareStack.add(
      (next, context) => async (args) => {
        sent.push(String(context.commandName).replace(/Command$/, ''))
        return next(args)
      },
      { step: 'initialize' },
    )
    const tableName = `a2-progress-${randomUUID()}`
    await createEventLogTable(client, tableName)
    const store = () => dynamoDBEventStore({ client, tableName })
    const item = async (sessionId: string, sk: string) =>
      (
        await client.send(
          new GetItemCommand({
            TableName: tableName,
            Key: sessionItemKey(sessionId, sk),
            ConsistentRead: true,
          }),
        )
      ).Item
    const partition = async (sessionId: string): Promise<Record<string, AttributeValue>[]> =>
      (
        await client.send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk',
            ExpressionAttributeValues: { ':pk': { S: sessionPk(sessionId) } },
            ConsistentRead: true,
          }),
        )
      ).Items ?? []
    return { client, tableName, store, sent, item, partition }
  }

  const note = (text = 'a note'): NewEvent => ({
    id: randomUUID(),
    type: 'note.added',
    payload: { text },
  })
  const progress = (text = 'chunk'): NewEvent => ({
    id: randomUUID(),
    type: 'ai.generation.progress',
    payload: { text },
  })
  const unguarded = (expectedIndex: number) => ({ expectedIndex, guardIds: false, progress: true })

  it('is one PutItem of 1 WRU; the head item stays behind, head() and reads go past it, and the next transaction builds on it', async () => {
    const { store, sent, item } = await table()
    const s = `s-${randomUUID()}`
    const writer = store()
    await writer.append(s, [note()])
    sent.length = 0
    const first = await writer.append(s, [progress('one')], unguarded(1))
    const second = await writer.append(s, [progress('two')], unguarded(2))
    expect(sent).toEqual(['PutItem', 'PutItem'])
    expect([first.writeUnits, second.writeUnits]).toEqual([1, 1])
    expect(second.events.map((event) => event.index)).toEqual([3])
    // The head item says 1; the log is at 3, for this process and any other.
    expect((await item(s, HEAD_SK))?.lastIndex).toEqual({ N: '1' })
    expect(await store().head(s)).toBe(3)
    expect((await store().read(s)).map((event) => event.payload)).toEqual([
      { text: 'a note' },
      { text: 'one' },
      { text: 'two' },
    ])
    // The writer saw the log reach 3: its next append is conditioned on the
    // head item's 1 and needs no check (guard, head, event: 2 units each).
    sent.length = 0
    const end = await writer.append(s, [note('the end')])
    expect(sent).toEqual(['TransactWriteItems'])
    expect(end.writeUnits).toBe(6)
    expect(end.events.map((event) => event.index)).toEqual([4])
    expect((await item(s, HEAD_SK))?.lastIndex).toEqual({ N: '4' })
    // Another process that never saw the session reads where its log ends,
    // and in which life, before it writes there: it then needs no check.
    await writer.append(s, [progress('three')], unguarded(4))
    await writer.append(s, [progress('four')], unguarded(5))
    const other = store()
    sent.length = 0
    const after = await other.append(s, [note('later')], { expectedIndex: 6 })
    expect(sent).toEqual(['GetItem', 'Query', 'TransactWriteItems'])
    expect(after.writeUnits).toBe(6)
    expect(after.events.map((event) => event.index)).toEqual([7])
    // One that saw it before the progress learns the head item is behind
    // from its cancelled try, and checks that the event it builds on is
    // there (2 more units).
    const earlier = store()
    expect(await earlier.head(s)).toBe(7)
    await writer.append(s, [progress('five')], unguarded(7))
    await writer.append(s, [progress('six')], unguarded(8))
    sent.length = 0
    const last = await earlier.append(s, [note('last')], { expectedIndex: 9 })
    expect(sent).toEqual(['TransactWriteItems', 'TransactWriteItems'])
    expect(last.writeUnits).toBe(8)
    expect(last.events.map((event) => event.index)).toEqual([10])
  })

  it("answers a resting reader's check with one read of the head item, behind the log only while a step streams", async () => {
    const { store, sent } = await table()
    const s = `s-${randomUUID()}`
    const writer = store()
    await writer.append(s, [note()])
    await writer.append(s, [progress()], unguarded(1))
    const reader = store()
    sent.length = 0
    expect((await reader.restingHead?.(s))?.index).toBe(1)
    expect(sent).toEqual(['GetItem'])
    await writer.append(s, [note('the step ends')])
    expect((await reader.restingHead?.(s))?.index).toBe(3)
    expect(await reader.head(s)).toBe(3)
  })

  it("is for progress only: an unguarded append without `progress` (the controller's decision) is a transaction that moves the head item, which a resting reader reads", async () => {
    const { store, sent, item } = await table()
    const s = `s-${randomUUID()}`
    const writer = store()
    await writer.append(s, [note()])
    sent.length = 0
    await writer.append(s, [note('decided')], { expectedIndex: 1, guardIds: false })
    expect(sent).toEqual(['TransactWriteItems'])
    expect((await item(s, HEAD_SK))?.lastIndex).toEqual({ N: '2' })
    expect((await store().restingHead?.(s))?.index).toBe(2)
  })

  it("is written only where this process saw the log: another process's progress, or an index past the log, goes through the transaction and conflicts", async () => {
    const { store, sent } = await table()
    const s = `s-${randomUUID()}`
    const a = store()
    const b = store()
    await a.append(s, [note()])
    await b.append(s, [progress()], unguarded(1))
    sent.length = 0
    // A last saw 1: its put at 2 would be over B's progress. It finds that out.
    const raced = await a.append(s, [progress()], unguarded(1)).catch((error) => error)
    expect(raced).toBeInstanceOf(AppendConflictError)
    expect(raced).toMatchObject({ expectedIndex: 1, actualIndex: 2 })
    // An expected index the log never reached writes nothing, not an event past a gap.
    const ahead = await store()
      .append(s, [progress()], unguarded(5))
      .catch((error) => error)
    expect(ahead).toMatchObject({ expectedIndex: 5, actualIndex: 2 })
    expect((await store().read(s)).map((event) => event.index)).toEqual([1, 2])
    expect(sent).not.toContain('DeleteItem')
  })

  it('goes through the transaction when a transaction held its item at that moment (TransactionConflictException, which the SDK does not retry)', async () => {
    const { client, tableName, store, sent } = await table()
    const s = `s-${randomUUID()}`
    let refused = false
    const busy = Object.assign(Object.create(client) as DynamoDBClient, {
      send: async (command: Parameters<DynamoDBClient['send']>[0]) => {
        if (command instanceof PutItemCommand && !refused) {
          refused = true
          throw Object.assign(new Error('Transaction is ongoing for the item'), {
            name: 'TransactionConflictException',
          })
        }
        return client.send(command as never)
      },
    })
    const writer = dynamoDBEventStore({ client: busy, tableName })
    await writer.append(s, [note()])
    sent.length = 0
    const stored = await writer.append(s, [progress('through')], unguarded(1))
    expect(refused).toBe(true)
    expect(stored.events.map((event) => event.index)).toEqual([2])
    expect(sent).toContain('TransactWriteItems')
    expect((await store().read(s)).map((event) => event.payload)).toEqual([
      { text: 'a note' },
      { text: 'through' },
    ])
  })

  it('takes no write from a step still streaming when another process erases its session: every index it could write holds a tombstone, with no content', async () => {
    const { store, item, partition } = await table()
    const s = `s-${randomUUID()}`
    const step = store()
    await step.append(s, [note('my address')])
    await step.append(s, [progress('my secret')], unguarded(1))
    const receipt = await store().erase(s)
    expect(receipt).toMatchObject({ events: 2, heads: 1 })
    // The step goes on where it left off, as a Lambda still running would.
    const late = await step.append(s, [progress('after the erase')], unguarded(2)).catch((e) => e)
    expect(late).toBeInstanceOf(AppendConflictError)
    expect(late).toMatchObject({ expectedIndex: 2, actualIndex: 0 })
    expect(await store().read(s)).toEqual([])
    expect(await store().head(s)).toBe(0)
    const left = await partition(s)
    expect(left.map((kept) => kept.sk?.S)).toEqual([eventSk(1), eventSk(2), eventSk(3)])
    for (const tombstone of left) {
      expect(Object.keys(tombstone).sort()).toEqual(['erased', 'expiresAt', 'pk', 'sk'])
      const expires = Number(tombstone.expiresAt?.N)
      expect(expires).toBeGreaterThan(Date.now() / 1000 + TOMBSTONE_RETENTION_SECONDS - 60)
    }
    expect(JSON.stringify(await item(s, eventSk(2)))).not.toContain('secret')
  })

  it('starts an erased session over on its tombstones: new events and progress write over them, a stale step still cannot, and reads end where the new log does', async () => {
    const { store } = await table()
    const s = `s-${randomUUID()}`
    const stale = store()
    await stale.append(s, [note('old')])
    await stale.append(s, [progress('old 1')], unguarded(1))
    await stale.append(s, [progress('old 2')], unguarded(2))
    await store().erase(s)
    const fresh = store()
    expect((await fresh.append(s, [note('new')])).events[0]?.index).toBe(1)
    // At 2 lies a tombstone: the put finds it taken, and the transaction writes over it.
    const next = await fresh.append(s, [progress('new 1')], unguarded(1))
    expect(next.events[0]?.index).toBe(2)
    // The stale step, at 3 as it last saw the log, meets the erase's tombstone.
    const late = await stale.append(s, [progress('old 3')], unguarded(3)).catch((e) => e)
    expect(late).toMatchObject({ code: 'APPEND_CONFLICT', actualIndex: 2 })
    expect((await store().read(s)).map((event) => event.payload)).toEqual([
      { text: 'new' },
      { text: 'new 1' },
    ])
    expect(await store().head(s)).toBe(2)
    expect((await fresh.append(s, [note('newer')])).events[0]?.index).toBe(3)
    expect(await store().head(s)).toBe(3)
  })

  it('erases a progress event that lands past the end the erase read: the tombstone past it fails, and the erase reads again', async () => {
    const { client, tableName, store } = await table()
    const s = `s-${randomUUID()}`
    const step = store()
    await step.append(s, [note()])
    let landed = false
    const racing = Object.assign(Object.create(client) as DynamoDBClient, {
      send: async (command: Parameters<DynamoDBClient['send']>[0]) => {
        const eraseRead =
          command instanceof QueryCommand &&
          command.input.ProjectionExpression?.includes('lastIndex') === true
        if (eraseRead && !landed) {
          const answer = await client.send(command as never)
          landed = true
          // After the erase read the partition, before it puts its first tombstone.
          await step.append(s, [progress('landed late')], unguarded(1))
          return answer
        }
        return client.send(command as never)
      },
    })
    const receipt = await dynamoDBEventStore({ client: racing, tableName }).erase(s)
    expect(landed).toBe(true)
    expect(receipt).toMatchObject({ events: 2, heads: 1 })
    expect(await store().read(s)).toEqual([])
    const late = await step.append(s, [progress()], unguarded(2)).catch((e) => e)
    expect(late).toBeInstanceOf(AppendConflictError)
  })
})
