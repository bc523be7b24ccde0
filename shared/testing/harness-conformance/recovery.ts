import { inputs } from '../../model/inputs/inputs.ts'
import type { ConformanceTestApi } from '../event-store-conformance.ts'
import { type Step, text } from '../model-script.ts'
import { CLAIM_TTL_MS, type ConformanceKit, texts } from './conformance-kit.ts'

/** Failure and recovery: retry() of a failed call, a step taken over from a process that died. */
export function describeRecovery(kit: ConformanceKit, { it, expect }: ConformanceTestApi): void {
  const { withWorld, send, state, events, waitFor, settled } = kit

  it('a failed model call fails the turn with its message; retry() runs it again', async () => {
    // A refusal (400) is not retried by the provider's own client, as a 5xx would be.
    const script: Step[] = [
      { error: 'The provider refused the call', status: 400, type: 'invalid_request_error' },
      text('Back up.'),
    ]
    await withWorld(script, async (w) => {
      const a = w.start()
      await send(a, w.sessionId, 'm1', 'Hello?')
      const failed = await waitFor('the failure', async () => {
        await a.runtime.idle()
        const current = await state(a, w.sessionId)
        return current.active?.phase === 'failed' ? current.active : undefined
      })
      expect(failed.error).toContain('The provider refused the call')
      await a
        .session(w.sessionId)
        .append(...inputs.retry({ turnId: failed.turnId, retryId: `${w.sessionId}-retry` }))
      const current = await settled(a, w.sessionId)
      expect(texts(current).at(-1)).toEqual({ role: 'assistant', text: 'Back up.' })
    })
  })

  it('a step whose process died mid-stream is taken over by a fresh process once its claim lapses, and answered once', async () => {
    const script: Step[] = [
      { hang: true, parts: text('Lost with the process').slice(0, -2) },
      text('Recovered answer.'),
    ]
    await withWorld(script, async (w) => {
      const dying = w.start()
      await send(dying, w.sessionId, 'm1', 'Hi')
      await waitFor('streamed progress', async () =>
        (await events(dying, w.sessionId)).some((event) => event.type === 'ai.generation.progress'),
      )
      // The process is gone: nothing of it is flushed, its claim is left to lapse.
      w.advance(CLAIM_TTL_MS + 1)
      const fresh = w.start()
      // A reader's arrival is what wakes recovery (as `fetch` does).
      await fresh.runtime.run({ sessionId: w.sessionId, lane: 'admission', key: 'recover' })
      const current = await settled(fresh, w.sessionId)
      expect(texts(current)).toEqual([
        { role: 'user', text: 'Hi' },
        { role: 'assistant', text: 'Recovered answer.' },
      ])
      const types = (await events(fresh, w.sessionId)).map((event) => event.type)
      expect(types.filter((type) => type === 'ai.generation.superseded')).toHaveLength(1)
      expect(types.filter((type) => type === 'ai.message.completed')).toHaveLength(1)
    })
  })
}
