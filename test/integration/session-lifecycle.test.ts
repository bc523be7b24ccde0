import { describe, expect, it } from 'vitest'
import { inputs } from '../../shared/ai/index.ts'
import { agent } from '../../shared/ai/server/index.ts'
import { sessionReducer } from '../../shared/ai/state/session-state.ts'
import { type EventStore, eventLog, importSession, memoryEventStore } from '../../shared/index.ts'
import { dynamoDBEventStore } from '../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { scriptedModel, text } from '../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../server/support.ts'
import { eventLogTableForSuite } from '../support/aws.ts'

const table = eventLogTableForSuite()
const store = () => dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })

async function foldedJson(over: EventStore, sessionId: string): Promise<string> {
  return JSON.stringify(
    await eventLog({ store: over }).session(sessionId).state(sessionReducer(undefined)),
  )
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
