import { randomUUID } from 'node:crypto'
import {
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb'
import { afterEach, describe, expect, it } from 'vitest'
import type { NewEvent } from '../../../../shared/index.ts'
import { createEventLogTable } from '../../../../shared/stores/dynamodb/create-table.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import {
  CLAIM_ITEM_RETENTION_SECONDS,
  claimSk,
  PK,
  SK,
  sessionPk,
  snapshotSk,
  TTL_ATTRIBUTE,
} from '../../../../shared/stores/dynamodb/table-keys.ts'
import { describeEventStoreConformance } from '../../../../shared/testing/event-store-conformance.ts'
import { awsClientConfig, eventLogTableForSuite } from '../../../support/aws.ts'

const table = eventLogTableForSuite()

describeEventStoreConformance(
  'DynamoDB store',
  () => ({
    store: dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
    // Another process's instance: its own hints of where each log ends, and of which life.
    another: () => dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
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
  }),
  { describe, it, expect },
)

describe('DynamoDB store claim items', () => {
  const ttlOf = async (sessionId: string, key: string): Promise<number> => {
    const { Item } = await table.client().send(
      new GetItemCommand({
        TableName: table.tableName(),
        Key: { [PK]: { S: sessionPk(sessionId) }, [SK]: { S: claimSk(key) } },
        ConsistentRead: true,
      }),
    )
    return Number(Item?.[TTL_ATTRIBUTE]?.N)
  }

  it("expire through the table's TTL attribute, in epoch seconds, a week after their claim ends", async () => {
    const store = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    const week = CLAIM_ITEM_RETENTION_SECONDS
    /**
     * Runs `write` and says the TTL it may have set: a week after its claim
     * ends `endsInMs` after the write's clock reading, which falls between the
     * readings before and after the call (however slow the emulator is).
     */
    const expiry = async (write: () => Promise<unknown>, endsInMs: number) => {
      const before = Date.now()
      await write()
      const after = Date.now()
      return {
        from: Math.ceil((before + endsInMs) / 1000) + week,
        to: Math.ceil((after + endsInMs) / 1000) + week,
      }
    }
    const expectWithin = async (key: string, { from, to }: { from: number; to: number }) => {
      const ttl = await ttlOf('ttl-session', key)
      expect(ttl).toBeGreaterThanOrEqual(from)
      expect(ttl).toBeLessThanOrEqual(to)
    }
    let claim: Awaited<ReturnType<typeof store.claim>> | undefined
    const taken = await expiry(async () => {
      claim = await store.claim('ttl-session', 'tool:c1', { ttlMs: 30_000 })
    }, 30_000)
    if (!claim) throw new Error('no claim')
    // Seconds, not milliseconds: DynamoDB would never expire a millisecond value.
    await expectWithin('tool:c1', taken)
    const held = claim
    await expectWithin(
      'tool:c1',
      await expiry(() => store.renewClaim('ttl-session', held, { ttlMs: 120_000 }), 120_000),
    )
    await expectWithin(
      'tool:c1',
      await expiry(
        () => store.releaseClaim('ttl-session', { ...held, expiresAt: Date.now() + 120_000 }),
        0,
      ),
    )
    await expectWithin(
      'tool:c2',
      await expiry(() => store.revokeClaim('ttl-session', 'tool:c2'), 0),
    )
    // The claim itself still works in milliseconds.
    expect((await store.readClaim('ttl-session', 'tool:c1'))?.attempt).toBe(1)
  })
})

describe('DynamoDB store: appends racing for the session head', () => {
  const clients: DynamoDBClient[] = []
  afterEach(() => {
    for (const client of clients.splice(0)) client.destroy()
  })

  /**
   * A client that counts transactions and cancellations, on a table of its
   * own: moto copies a table for every transaction, and the suite's is large.
   */
  async function countedTable() {
    const client = new DynamoDBClient(awsClientConfig())
    clients.push(client)
    const counts = { transactions: 0, cancelled: 0 }
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'TransactWriteItemsCommand') return next(args)
        counts.transactions++
        return next(args).catch((error: unknown) => {
          counts.cancelled++
          throw error
        })
      },
      { step: 'initialize' },
    )
    const tableName = `a2-race-${randomUUID()}`
    await createEventLogTable(client, tableName)
    const store = (options: { appendRetryMs?: number } = {}) =>
      dynamoDBEventStore({ client, tableName, ...options })
    return { store, counts }
  }

  const one = (): NewEvent[] => [{ id: randomUUID(), type: 'test.happened', payload: {} }]
  const upTo = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1)

  it("queues one process's concurrent appends to a session: 20 writers cost 20 transactions, none cancelled", async () => {
    const { store, counts } = await countedTable()
    const s = `s-${randomUUID()}`
    const process = store()
    const results = await Promise.allSettled(upTo(20).map(() => process.append(s, one())))
    expect(results.filter((result) => result.status === 'rejected')).toEqual([])
    expect((await process.read(s)).map((event) => event.index)).toEqual(upTo(20))
    // Racing each other, they cost ~20²/2 transactions, most of them cancelled.
    expect(counts).toEqual({ transactions: 20, cancelled: 0 })
  })

  it('lets appenders in several processes all land by retrying a moved head after a jittered wait: 24 writers in 4 processes', async () => {
    const { store, counts } = await countedTable()
    const s = `s-${randomUUID()}`
    const processes = upTo(4).map(() => store())
    const results = await Promise.allSettled(
      upTo(24).map((n) => processes[n % 4]?.append(s, one())),
    )
    expect(results.filter((result) => result.status === 'rejected')).toEqual([])
    expect((await processes[0]?.read(s))?.map((event) => event.index)).toEqual(upTo(24))
    // Each lost race costs one cancelled transaction. Retrying at once, every
    // loser of a round raced again: ~24²/2 transactions.
    expect(counts.transactions, JSON.stringify(counts)).toBeLessThanOrEqual(2 * 24)
  })

  it('gives up after appendRetryMs with APPEND_CONTENDED (503), writing nothing; resent, the batch lands', async () => {
    const { store } = await countedTable()
    const s = `s-${randomUUID()}`
    await store().append(s, one())
    // A process that saw the session at 1 loses the next index to another.
    const impatient = store({ appendRetryMs: 0 })
    expect(await impatient.head(s)).toBe(1)
    await store().append(s, one())
    const batch = one()
    const error = await impatient.append(s, batch).catch((e) => e)
    expect(error).toMatchObject({ code: 'APPEND_CONTENDED', sessionId: s })
    expect(await impatient.head(s)).toBe(2)
    const resent = await store().append(s, batch)
    expect(resent).toMatchObject({ replayed: false, events: [{ id: batch[0]?.id, index: 3 }] })
  })
})

describe('DynamoDB store write units', () => {
  it('reports what an append cost (guard, head and event, twice in a transaction), and nothing for a replay', async () => {
    const store = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    const sessionId = `wru-${randomUUID()}`
    const event = { id: `e-${randomUUID()}`, type: 'note.added', payload: { text: 'hi' } }
    expect((await store.append(sessionId, [event])).writeUnits).toBe(6)
    const replay = await store.append(sessionId, [event])
    expect(replay.replayed).toBe(true)
    expect(replay.writeUnits).toBeUndefined()
  })
})

describe('DynamoDB store: a snapshot write racing an erase', () => {
  it('is erased too when it lands between the erase reading the session and deleting its head', async () => {
    const raw = table.client()
    const tableName = table.tableName()
    const writer = dynamoDBEventStore({ client: raw, tableName })
    const s = `snap-race-${randomUUID()}`
    const note = (): NewEvent => ({ id: randomUUID(), type: 'note.added', payload: {} })
    const { events } = await writer.append(s, [note(), note()])
    const life = events[0]?.life as string
    let landed = false
    // The fold of another process writes its snapshot just before the head goes.
    const racing = Object.assign(Object.create(raw) as DynamoDBClient, {
      send: async (command: Parameters<DynamoDBClient['send']>[0]) => {
        if (command instanceof DeleteItemCommand && !landed) {
          landed = true
          await writer.writeSnapshot(s, 'ai', { index: 2, state: { secret: 'old address' }, life })
          expect(await writer.readSnapshot(s, 'ai')).toMatchObject({ index: 2 })
        }
        return raw.send(command as never)
      },
    })
    const receipt = await dynamoDBEventStore({ client: racing, tableName }).erase(s)
    expect(landed).toBe(true)
    expect(receipt).toMatchObject({ events: 2, heads: 1, snapshots: 1 })
    expect(await writer.readSnapshot(s, 'ai')).toBeUndefined()
  })
})
