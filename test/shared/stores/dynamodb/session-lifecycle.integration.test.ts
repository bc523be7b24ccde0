import {
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb'
import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import {
  type EventStore,
  eventLog,
  importSession,
  memoryEventStore,
} from '../../../../shared/index.ts'
import { sessionReducer } from '../../../../shared/model/state/session-state.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import {
  HEAD_SK,
  sessionItemKey,
  TTL_ATTRIBUTE,
} from '../../../../shared/stores/dynamodb/table-keys.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../../../support/agent-log.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'

const table = eventLogTableForSuite()
const store = () => dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })

/** The folded state and index (the life is each store's own: an import starts a new one). */
async function foldedJson(over: EventStore, sessionId: string): Promise<string> {
  const { state, index } = await eventLog({ store: over })
    .session(sessionId)
    .state(sessionReducer(undefined))
  return JSON.stringify({ state, index })
}

describe('the session lifecycle on the DynamoDB store', () => {
  it('exports a session, erases it from every item kind, and imports it back to the same state', async () => {
    const a = track(
      agent({
        name: 'lifecycle',
        store: store(),
        model: scriptedModel([text('Your refund is on its way.', { chunks: 4 })]).model,
      }),
    )
    await a.session('ticket-7').append(...inputs.message(userMessage('m1', 'Where is my refund?')))
    await a.runtime.idle()
    const before = await foldedJson(store(), 'ticket-7')
    const jsonl = await a.session('ticket-7').export()

    // Into another store, and back into this table after an erase.
    const elsewhere = memoryEventStore()
    await importSession(elsewhere, jsonl)
    expect(await foldedJson(elsewhere, 'ticket-7')).toBe(before)

    const receipt = await a.session('ticket-7').erase()
    expect(receipt).toMatchObject({ heads: 1, events: jsonl.trimEnd().split('\n').length - 1 })
    expect(receipt.idGuards).toBeGreaterThan(0)
    expect(await a.session('ticket-7').state()).toMatchObject({ index: 0, state: { messages: [] } })

    await importSession(store(), jsonl)
    expect(await foldedJson(store(), 'ticket-7')).toBe(before)
    expect(await a.session('ticket-7').export()).toBe(jsonl)
  })
})

describe('retention on the DynamoDB store', () => {
  const headExpiry = async (sessionId: string): Promise<number | undefined> => {
    const { Item } = await table.client().send(
      new GetItemCommand({
        TableName: table.tableName(),
        Key: sessionItemKey(sessionId, HEAD_SK),
        ConsistentRead: true,
      }),
    )
    const value = Item?.[TTL_ATTRIBUTE]?.N
    return value === undefined ? undefined : Number(value)
  }

  it("puts the session's expiry on its head as the TTL attribute, in epoch seconds, moved by every append", async () => {
    // moto keeps the TTL setting but never deletes expired items: the values are what is tested.
    let clock = 1_700_000_000_000
    const dynamo = dynamoDBEventStore({
      client: table.client(),
      tableName: table.tableName(),
      now: () => clock,
    })
    const log = eventLog({ store: dynamo, retentionMs: 30 * 86_400_000 })
    await log.session('retained').append([{ type: 'note', payload: { n: 1 } }])
    expect(await headExpiry('retained')).toBe(1_700_000_000 + 30 * 86_400)
    clock += 3_600_000
    await log.session('retained').append([{ type: 'note', payload: { n: 2 } }])
    expect(await headExpiry('retained')).toBe(1_700_003_600 + 30 * 86_400)

    await eventLog({ store: dynamo })
      .session('forever')
      .append([{ type: 'note', payload: {} }])
    expect(await headExpiry('forever')).toBeUndefined()
  })

  it('starts an expired session over when its head is gone (TTL deleted it) before the rest is swept', async () => {
    const log = eventLog({ store: store(), retentionMs: 60_000 })
    await log.session('expired').append([
      { id: 'old-1', type: 'note', payload: { era: 'old' } },
      { id: 'old-2', type: 'note', payload: { era: 'old' } },
    ])
    // What DynamoDB's TTL does: it deletes the head item alone.
    await table.client().send(
      new DeleteItemCommand({
        TableName: table.tableName(),
        Key: sessionItemKey('expired', HEAD_SK),
      }),
    )
    // Another process, whose head hint is still 2, appends: no half session comes back.
    const stored = await log
      .session('expired')
      .append([{ id: 'old-1', type: 'note', payload: { era: 'new' } }])
    expect(stored.map((event) => event.index)).toEqual([1])
    const events = await store().read('expired')
    expect(events.map((event) => event.payload)).toEqual([{ era: 'new' }])
  })

  it('keeps a session re-created while an append sweeps what its expired self left (the sweep deletes only while headless)', async () => {
    const old = eventLog({ store: store() }).session('recreated')
    await old.append([{ id: 'gone-1', type: 'note', payload: { era: 'old' } }])
    await table.client().send(
      new DeleteItemCommand({
        TableName: table.tableName(),
        Key: sessionItemKey('recreated', HEAD_SK),
      }),
    )
    // Process B starts the session over (its own sweep, then its append)
    // just as process A's sweep reads the partition it is about to erase.
    const raw = table.client()
    let raced = false
    const racing = Object.assign(Object.create(raw) as DynamoDBClient, {
      send: async (command: Parameters<DynamoDBClient['send']>[0]) => {
        const sweepRead =
          command instanceof QueryCommand &&
          command.input.ProjectionExpression?.includes('lastIndex') === true
        if (sweepRead && !raced) {
          raced = true
          await eventLog({ store: store() })
            .session('recreated')
            .append([{ id: 'b-1', type: 'note', payload: { by: 'B' } }])
        }
        return raw.send(command as never)
      },
    })
    const a = dynamoDBEventStore({ client: racing, tableName: table.tableName() })
    await eventLog({ store: a })
      .session('recreated')
      .append([{ id: 'a-1', type: 'note', payload: { by: 'A' } }])
    expect(raced).toBe(true)
    const events = await store().read('recreated')
    expect(events.map((event) => [event.index, event.id])).toEqual([
      [1, 'b-1'],
      [2, 'a-1'],
    ])
  })
})
