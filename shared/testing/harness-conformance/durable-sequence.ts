import type { ConformanceTestApi } from '../event-store-conformance.ts'
import { lastUserText, text } from '../model-script.ts'
import { type ConformanceKit, texts } from './conformance-kit.ts'

/** A turn as one durable sequence of events, from admission to the answer. */
export function describeDurableSequence(
  kit: ConformanceKit,
  { it, expect }: ConformanceTestApi,
): void {
  const { withWorld, send, events, settled } = kit

  it('a turn is one durable sequence: admitted, requested, started, progress, completed, answered', async () => {
    await withWorld([text('Hello! How can I help?', { chunks: 3 })], async (w) => {
      const a = w.start()
      await send(a, w.sessionId, 'm1', 'Hi')
      const current = await settled(a, w.sessionId)
      const all = await events(a, w.sessionId)
      expect(
        all.map((event) => event.type).filter((type) => type !== 'ai.generation.progress'),
      ).toEqual([
        'ai.control.requested',
        'ai.message.created',
        'ai.control.committed',
        'ai.control.decided',
        'ai.generation.requested',
        'ai.generation.started',
        'ai.generation.completed',
        'ai.message.completed',
      ])
      expect(all.some((event) => event.type === 'ai.generation.progress')).toBe(true)
      expect(texts(current)).toEqual([
        { role: 'user', text: 'Hi' },
        { role: 'assistant', text: 'Hello! How can I help?' },
      ])
      expect(w.sut.calls().map(lastUserText)).toEqual(['Hi'])
    })
  })
}
