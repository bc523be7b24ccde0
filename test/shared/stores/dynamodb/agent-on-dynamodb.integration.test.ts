import { tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { scriptedModel, text, toolCalls } from '../../../../shared/testing/scripted-model.ts'
import { expectEachAnsweredOnce, textOf, track, userMessage } from '../../../support/agent-log.ts'
import { eventLogTableForSuite } from '../../../support/aws.ts'

const table = eventLogTableForSuite()

describe('the agent runtime on the DynamoDB store', () => {
  it('answers a message with a tool call and an approval on DynamoDB', async () => {
    const effects: string[] = []
    const closeTicket = tool({
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }) => {
        effects.push(ticketId)
        return { closed: true }
      },
    })
    const a = track(
      agent({
        name: 'on-dynamodb',
        store: dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
        model: scriptedModel([
          toolCalls({ toolCallId: 'c1', toolName: 'closeTicket', input: { ticketId: 'T-1' } }),
          text('Closed T-1.', { chunks: 5 }),
        ]).model,
        tools: { closeTicket },
        harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
      }),
    )
    await a.session('s1').append(...inputs.message(userMessage('m1', 'Close T-1')))
    await a.runtime.idle()
    const pending = (await a.session('s1').state()).state.pendingApprovals[0]
    expect(pending).toMatchObject({ toolCallId: 'c1' })
    if (!pending) return
    await a.session('s1').append(...inputs.approval(pending, { approved: true }))
    await a.runtime.idle()
    const { state } = await a.session('s1').state()
    expect(effects).toEqual(['T-1'])
    expect(textOf(state.messages[1])).toBe('Closed T-1.')
    expect(state.active).toBeNull()
    // Quiet: a resting tab's one read of the head item sees the whole log (a
    // step's progress alone leaves the head item behind, and the turn's later
    // appends move it).
    const store = dynamoDBEventStore({ client: table.client(), tableName: table.tableName() })
    expect((await store.restingHead?.('s1'))?.index).toBe(await store.head('s1'))
    expect(await store.head('s1')).toBeGreaterThan(10)

    // A fresh agent on the same table folds the same state from the log alone.
    const reader = track(
      agent({
        name: 'on-dynamodb',
        store: dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
        model: scriptedModel([]).model,
      }),
    )
    expect((await reader.session('s1').state()).state.messages).toEqual(state.messages)
  })

  it('keeps concurrent pushes to one session in one order, each admitted once', async () => {
    const a = track(
      agent({
        name: 'concurrent',
        store: dynamoDBEventStore({ client: table.client(), tableName: table.tableName() }),
        model: scriptedModel([text('a'), text('b'), text('c'), text('d')]).model,
      }),
    )
    await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map((id) =>
        a.session('s2').append(...inputs.message(userMessage(id, id))),
      ),
    )
    await a.runtime.idle()
    const { state } = await a.session('s2').state()
    expectEachAnsweredOnce(state.messages, ['c1', 'c2', 'c3', 'c4'], ['a', 'b', 'c', 'd'])
  })
})
