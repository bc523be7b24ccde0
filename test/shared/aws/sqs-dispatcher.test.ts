import { describe, expect, it } from 'vitest'
import { indexWatermark, watchedStore } from '../../../shared/aws/index-watermark.ts'
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

  it('uses the index the store last saw, so the fast path and the router send the same deduplication ID', async () => {
    const sqs = fakeClient(() => ({}))
    const watermark = indexWatermark()
    const store = watchedStore(memoryEventStore(), watermark)
    await store.append('s1', [
      { id: 'e1', type: 'note', payload: 1 },
      { id: 'e2', type: 'note', payload: 2 },
    ])
    await sqsDispatcher({ client: sqs.client, queueUrls, watermark }).wake([
      { sessionId: 's1', lane: 'admission' },
    ])
    expect(sqs.sent[0]?.input.Entries[0].MessageDeduplicationId).toBe(
      wakeUpMessage({ sessionId: 's1', lane: 'admission' }, { index: 2 }).deduplicationId,
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
      { wakeUp: { sessionId: 'a', lane: 'admission' } },
      { wakeUp: { sessionId: 'b', lane: 'admission' } },
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
      sendWakeUps({ client: failing.client, queueUrls }, [
        { wakeUp: { sessionId: 'a', lane: 'admission' } },
      ]),
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

describe('indexWatermark', () => {
  it('keeps the highest index seen per session, from appends, reads, heads and snapshots', async () => {
    const watermark = indexWatermark()
    const inner = memoryEventStore()
    await inner.append(
      's1',
      [1, 2, 3].map((n) => ({ id: `e${n}`, type: 'note', payload: n })),
    )
    const store = watchedStore(inner, watermark)
    expect(watermark.get('s1')).toBeUndefined()
    await store.read('s1', { limit: 2 })
    expect(watermark.get('s1')).toBe(2)
    await store.head('s1')
    expect(watermark.get('s1')).toBe(3)
    await store.read('s1', { limit: 1 })
    expect(watermark.get('s1')).toBe(3)
  })

  it('forgets the oldest session beyond its size, which only costs deduplication', () => {
    const watermark = indexWatermark({ maxSessions: 2 })
    watermark.observe('a', 1)
    watermark.observe('b', 1)
    watermark.observe('c', 1)
    expect([watermark.get('a'), watermark.get('b'), watermark.get('c')]).toEqual([undefined, 1, 1])
  })
})
