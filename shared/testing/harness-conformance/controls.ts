import { inputs } from '../../model/inputs/inputs.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import type { ConformanceTestApi } from '../event-store-conformance.ts'
import { lastUserText, type Step, text } from '../model-script.ts'
import { type ConformanceKit, hang, texts } from './conformance-kit.ts'

/**
 * The user's controls mid-turn: Stop at the frontier the user saw, Steer
 * at a step boundary, Pause now and Resume.
 */
export function describeControls(kit: ConformanceKit, { it, expect }: ConformanceTestApi): void {
  const { withWorld, send, state, events, waitFor, settled } = kit

  it('Stop at the frontier the user saw keeps that text, ends the turn and aborts the model call', async () => {
    const script: Step[] = [
      { hang: true, parts: text('The answer so far').slice(0, -2) },
      text('Next answer.'),
    ]
    await withWorld(script, async (w) => {
      const a = w.start()
      await send(a, w.sessionId, 'm1', 'Tell me')
      const seen = await waitFor('streamed text', async () => {
        const snapshot = await a.session(w.sessionId).state()
        const response = (snapshot.state as AIState).messages.at(-1)
        return response?.role === 'assistant' &&
          response.parts.some((part) => part.type === 'text' && part.text.length > 0)
          ? snapshot
          : undefined
      })
      const turnId = (seen.state as AIState).active?.turnId as string
      await a.session(w.sessionId).append(...inputs.stop({ turnId, frontier: seen.index }))
      const current = await settled(a, w.sessionId)
      expect(texts(current)).toEqual([
        { role: 'user', text: 'Tell me' },
        { role: 'assistant', text: 'The answer so far' },
      ])
      expect(current.stoppedResponseIds).toHaveLength(1)
      // The aborted call is not answered later: the next turn gets the next step.
      await send(a, w.sessionId, 'm2', 'Again')
      expect(texts(await settled(a, w.sessionId)).at(-1)).toEqual({
        role: 'assistant',
        text: 'Next answer.',
      })
    })
  })

  it('Steer during a step: the step finishes, then the steering enters as one new turn before another model call', async () => {
    const script: Step[] = [hang(text('Looking at orders.')), text('Billing checked first.')]
    await withWorld(script, async (w) => {
      const a = w.start()
      await send(a, w.sessionId, 'm1', 'Why was I charged twice?')
      // Its text shown: the model call is under way (and waits for its release).
      const turnId = await waitFor('the step to stream', async () => {
        const current = await state(a, w.sessionId)
        return current.activeGeneration?.status === 'running' &&
          texts(current).at(-1)?.text === 'Looking at orders.'
          ? current.active?.turnId
          : undefined
      })
      await a.session(w.sessionId).append(
        ...inputs.steer(
          {
            id: `${w.sessionId}-m2`,
            role: 'user',
            parts: [{ type: 'text', text: 'Check billing first.' }],
          },
          { afterStepOf: turnId },
        ),
      )
      w.sut.release()
      const current = await settled(a, w.sessionId)
      expect(texts(current)).toEqual([
        { role: 'user', text: 'Why was I charged twice?' },
        { role: 'assistant', text: 'Looking at orders.' },
        { role: 'user', text: 'Check billing first.' },
        { role: 'assistant', text: 'Billing checked first.' },
      ])
      expect(w.sut.calls().map(lastUserText)).toEqual([
        'Why was I charged twice?',
        'Check billing first.',
      ])
      const completed = (await events(a, w.sessionId)).filter(
        (event) => event.type === 'ai.message.completed',
      )
      expect(completed.map((event) => (event.payload as { reason?: string }).reason)).toEqual([
        'handoff',
        'finished',
      ])
    })
  })

  it('Pause now cancels the model call; Resume runs the step again from durable state', async () => {
    const script: Step[] = [{ hang: true, parts: text('Half').slice(0, -2) }, text('Whole answer.')]
    await withWorld(script, async (w) => {
      const a = w.start()
      await send(a, w.sessionId, 'm1', 'Go')
      // Its text shown: the model call is under way, so Pause now cuts it short.
      await waitFor('the step to stream', async () => {
        const current = await state(a, w.sessionId)
        return (
          current.activeGeneration?.status === 'running' && texts(current).at(-1)?.text === 'Half'
        )
      })
      await a
        .session(w.sessionId)
        .append(...inputs.pause({ when: 'now', id: `${w.sessionId}-pause` }))
      await waitFor('the pause', async () => {
        await a.runtime.idle()
        return (await state(a, w.sessionId)).active?.phase === 'paused'
      })
      await a.session(w.sessionId).append(...inputs.resume({ id: `${w.sessionId}-resume` }))
      const current = await settled(a, w.sessionId)
      expect(texts(current).at(-1)).toEqual({ role: 'assistant', text: 'Whole answer.' })
      expect(w.sut.calls()).toHaveLength(2)
    })
  })
}
