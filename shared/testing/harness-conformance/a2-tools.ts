import { inputs } from '../../model/inputs/inputs.ts'
import type { ConformanceTestApi } from '../event-store-conformance.ts'
import { text, toolCalls } from '../model-script.ts'
import { actTool, type ConformanceKit, DAY_MS, hang, texts } from './conformance-kit.ts'

/**
 * A loop whose tool calls A2's tools lane runs (the AI SDK's, Pi's): a
 * call as soon as its input is ready, an approval that waits durably.
 */
export function describeA2Tools(kit: ConformanceKit, { it, expect }: ConformanceTestApi): void {
  const { withWorld, send, state, events, waitFor, settled } = kit

  it("a tool call is recorded as soon as its input is ready, and A2's tools lane runs it while the step still streams", async () => {
    const { ran, tools } = actTool()
    let stepOpen: boolean | undefined
    const script = [
      hang(toolCalls({ toolCallId: 'c1', toolName: 'act', input: { what: 'refund' } })),
      text('Refunded.'),
    ]
    await withWorld(
      script,
      async (w) => {
        const a = w.start()
        await send(a, w.sessionId, 'm1', 'Refund me')
        await waitFor('the tool to run', async () => ran.length > 0)
        stepOpen = (await state(a, w.sessionId)).activeGeneration?.status === 'running'
        w.sut.release()
        const current = await settled(a, w.sessionId)
        expect(stepOpen).toBe(true)
        expect(ran).toEqual(['refund'])
        expect(texts(current).at(-1)).toEqual({ role: 'assistant', text: 'Refunded.' })
        const results = (await events(a, w.sessionId)).filter(
          (event) => event.type === 'ai.tool.result',
        )
        expect(results.map((event) => event.payload)).toMatchObject([
          { toolCallId: 'c1', outcome: 'output', output: { done: 'refund' } },
        ])
        expect(w.sut.calls()).toHaveLength(2)
        expect(w.sut.calls()[1]?.messages.at(-1)).toMatchObject({ role: 'tool' })
      },
      tools,
    )
  })

  it('an approval waits durably: answered a day later by another process, the tool runs once and the turn goes on', async () => {
    const { ran, tools } = actTool()
    const script = [
      toolCalls({ toolCallId: 'c1', toolName: 'act', input: { what: 'close T-1' } }),
      text('Closed.'),
    ]
    await withWorld(
      script,
      async (w) => {
        const first = w.start()
        await send(first, w.sessionId, 'm1', 'Close it')
        const waiting = await waitFor('the approval request', async () => {
          await first.runtime.idle()
          const current = await state(first, w.sessionId)
          return current.pendingApprovals[0]
        })
        expect(ran).toEqual([])
        first.runtime.close()
        w.advance(DAY_MS)
        const later = w.start()
        await later
          .session(w.sessionId)
          .append(...inputs.approval(waiting, { approved: true, id: `${w.sessionId}-yes` }))
        const current = await settled(later, w.sessionId)
        expect(ran).toEqual(['close T-1'])
        expect(texts(current).at(-1)).toEqual({ role: 'assistant', text: 'Closed.' })
      },
      tools,
      true,
    )
  })
}
