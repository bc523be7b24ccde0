import { describe, expect, it } from 'vitest'
import { wakeUpsFor } from '../../../shared/agent/wiring/wake-ups-for.ts'
import { sendWakeUps, sqsDispatcher } from '../../../shared/aws/sqs-dispatcher.ts'
import { wakeUpMessage } from '../../../shared/aws/wake-up-message.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'
import { fakeClient } from '../../support/fake-clients.ts'

const queueUrls = {
  admission: 'q/admission.fifo',
  generation: 'q/generation.fifo',
  tools: 'q/tools.fifo',
  handlers: 'q/handlers.fifo',
}

describe('sqsDispatcher', () => {
  it('sends each wake-up to its lane queue, at most 10 per SendMessageBatch', async () => {
    const sqs = fakeClient(() => ({ Successful: [], Failed: [] }))
    const wakeUps = Array.from({ length: 12 }, (_, n) => ({
      sessionId: `s${n}`,
      lane: 'admission',
    }))
    await sqsDispatcher({ client: sqs.client, queueUrls }).wake([
      ...wakeUps,
      { sessionId: 's1', lane: 'tools', key: 'c1' },
    ])
    // Lanes are sent in parallel; within a lane, batches go in order.
    expect(
      sqs.sent.map((command) => [
        command.name,
        command.input.QueueUrl,
        command.input.Entries.length,
      ]),
    ).toEqual(
      expect.arrayContaining([
        ['SendMessageBatchCommand', 'q/admission.fifo', 10],
        ['SendMessageBatchCommand', 'q/admission.fifo', 2],
        ['SendMessageBatchCommand', 'q/tools.fifo', 1],
      ]),
    )
    expect(sqs.sent).toHaveLength(3)
    expect(
      sqs.sent.find((command) => command.input.QueueUrl === 'q/tools.fifo')?.input.Entries[0],
    ).toMatchObject({
      MessageGroupId: 's1/c1',
      MessageBody: JSON.stringify({ sessionId: 's1', lane: 'tools', key: 'c1' }),
    })
  })

  it('deduplicates by the news a wake-up is for (its life and index), so the fast path and the router send the same ID, and a life started over another', async () => {
    const sqs = fakeClient(() => ({}))
    const store = memoryEventStore()
    const routing = { handledTypes: new Set<string>() }
    const first = await store.append('s1', [
      { id: 'e1', type: 'note', payload: 1 },
      { id: 'e2', type: 'note', payload: 2 },
    ])
    const dispatcher = sqsDispatcher({ client: sqs.client, queueUrls })
    await dispatcher.wake(wakeUpsFor(first.events, routing))
    // The router's copy: the same news, from the stream record of its last event.
    await sendWakeUps({ client: sqs.client, queueUrls }, [
      {
        sessionId: 's1',
        lane: 'admission',
        at: { life: first.events[1]?.life as string, index: 2 },
      },
    ])
    // Erased and started over within SQS's five-minute window: the same
    // indices, another life, other IDs (issue 37, case 3).
    await store.erase('s1')
    const again = await store.append('s1', [
      { id: 'e1', type: 'note', payload: 1 },
      { id: 'e2', type: 'note', payload: 2 },
    ])
    await dispatcher.wake(wakeUpsFor(again.events, routing))
    const ids = sqs.sent.map((command) => command.input.Entries[0].MessageDeduplicationId)
    expect(ids[0]).toBe(ids[1])
    expect(ids[2]).not.toBe(ids[0])
    expect(ids[0]).toBe(
      wakeUpMessage({
        sessionId: 's1',
        lane: 'admission',
        at: { life: first.events[1]?.life as string, index: 2 },
      }).deduplicationId,
    )
  })

  it('sends entries SQS failed for a transient reason again, and throws SEND_FAILED when they keep failing', async () => {
    let calls = 0
    const sqs = fakeClient((command) => {
      calls++
      const entries = command.input.Entries as { Id: string }[]
      return calls === 1
        ? { Failed: [{ Id: entries[1]?.Id, Code: 'InternalError', SenderFault: false }] }
        : { Failed: [] }
    })
    await sendWakeUps({ client: sqs.client, queueUrls }, [
      { sessionId: 'a', lane: 'admission' },
      { sessionId: 'b', lane: 'admission' },
    ])
    expect(
      sqs.sent.map((command) => command.input.Entries.map((entry: { Id: string }) => entry.Id)),
    ).toEqual([['0', '1'], ['1']])

    const failing = fakeClient((command) => ({
      Failed: (command.input.Entries as { Id: string }[]).map((entry) => ({
        Id: entry.Id,
        Code: 'InternalError',
        SenderFault: false,
      })),
    }))
    await expect(
      sendWakeUps({ client: failing.client, queueUrls }, [{ sessionId: 'a', lane: 'admission' }]),
    ).rejects.toMatchObject({ code: 'SEND_FAILED' })
    expect(failing.sent).toHaveLength(3)
  })

  it('refuses a wake-up for a lane without a queue', async () => {
    const sqs = fakeClient()
    await expect(
      sqsDispatcher({ client: sqs.client, queueUrls }).wake([
        { sessionId: 's', lane: 'elsewhere' },
      ]),
    ).rejects.toMatchObject({ code: 'MALFORMED_WAKE_UP' })
    expect(sqs.sent).toHaveLength(0)
  })
})
