import type { ConformanceTestApi } from '../event-store-conformance.ts'
import { lastUserText, type Step, text } from '../model-script.ts'
import { type ConformanceKit, texts } from './conformance-kit.ts'

/** A session's model calls never overlap: a message sent during a turn waits for it. */
export function describeSerialCalls(kit: ConformanceKit, { it, expect }: ConformanceTestApi): void {
  const { withWorld, send, events, settled } = kit

  it('model calls of a session never overlap: a message sent during a turn waits for it', async () => {
    const script: Step[] = [text('First answer.', { chunks: 4 }), text('Second answer.')]
    await withWorld(script, async (w) => {
      const a = w.start()
      await Promise.all([send(a, w.sessionId, 'm1', 'One'), send(a, w.sessionId, 'm2', 'Two')])
      const current = await settled(a, w.sessionId)
      expect(texts(current).map((message) => message.text)).toEqual([
        'One',
        'First answer.',
        'Two',
        'Second answer.',
      ])
      let open = 0
      let most = 0
      for (const event of await events(a, w.sessionId)) {
        if (event.type === 'ai.generation.started') most = Math.max(most, ++open)
        if (event.type === 'ai.generation.completed') open--
      }
      expect(most).toBe(1)
      expect(w.sut.calls().map(lastUserText)).toEqual(['One', 'Two'])
    })
  })
}
