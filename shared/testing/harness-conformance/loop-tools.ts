import { inputs } from '../../model/inputs/inputs.ts'
import { CrashError, CrashPoints } from '../crash-ports.ts'
import type { ConformanceTestApi } from '../event-store-conformance.ts'
import { type Step, text, toolCalls } from '../model-script.ts'
import { type ConformanceKit, DAY_MS, texts } from './conformance-kit.ts'

/**
 * A loop that runs its own tools (FX over ACP): provider-executed calls
 * with their results, its permission requests as durable approvals.
 */
export function describeLoopTools(kit: ConformanceKit, { it, expect }: ConformanceTestApi): void {
  const { withWorld, send, state, events, waitFor, settled } = kit

  it("the loop's own tool call arrives as a provider-executed call with its result, in the step that made it", async () => {
    const script = [
      [
        ...toolCalls({
          toolCallId: 'c1',
          toolName: 'act',
          input: { what: 'list files' },
        }).slice(0, -1),
        ...text('Listed.').slice(1),
      ],
    ]
    await withWorld(script, async (w) => {
      const a = w.start()
      await send(a, w.sessionId, 'm1', 'List them')
      const current = await settled(a, w.sessionId)
      const all = await events(a, w.sessionId)
      expect(
        all.filter((event) => event.type === 'ai.tool.called').map((event) => event.payload),
      ).toMatchObject([{ toolCallId: 'c1', toolName: 'act', providerExecuted: true }])
      expect(
        all.filter((event) => event.type === 'ai.tool.result').map((event) => event.payload),
      ).toMatchObject([{ toolCallId: 'c1', outcome: 'output' }])
      expect(texts(current).at(-1)).toEqual({ role: 'assistant', text: 'Listed.' })
      expect(w.sut.calls()).toHaveLength(1)
    })
  })

  it("the loop's permission request is an approval in the log: allowed, the loop runs the call and the turn completes", async () => {
    const script = [
      [
        ...toolCalls({
          toolCallId: 'c1',
          toolName: 'act',
          input: { what: 'rm -r build' },
        }).slice(0, -1),
        ...text('Removed.').slice(1),
      ],
    ]
    await withWorld(
      script,
      async (w) => {
        const a = w.start()
        await send(a, w.sessionId, 'm1', 'Clean up')
        const waiting = await waitFor('the approval request', async () => {
          const current = await state(a, w.sessionId)
          return current.pendingApprovals[0]
        })
        await a
          .session(w.sessionId)
          .append(...inputs.approval(waiting, { approved: true, id: `${w.sessionId}-yes` }))
        const current = await settled(a, w.sessionId)
        const all = await events(a, w.sessionId)
        expect(
          all.filter((event) => event.type === 'ai.tool.called').map((event) => event.payload),
        ).toMatchObject([{ toolCallId: 'c1', toolName: 'act', providerExecuted: true }])
        expect(
          all.filter((event) => event.type === 'ai.tool.result').map((event) => event.payload),
        ).toMatchObject([{ toolCallId: 'c1', outcome: 'output' }])
        expect(texts(current).at(-1)).toEqual({ role: 'assistant', text: 'Removed.' })
      },
      undefined,
      true,
    )
  })

  it("the loop's permission request outlives its process: answered a day later through a fresh process, the recovered turn gets that answer without asking the user again", async () => {
    // The recovered turn runs again from its prompt, and the loop asks again.
    const asks: Step = [
      ...toolCalls({
        toolCallId: 'c1',
        toolName: 'act',
        input: { what: 'deploy' },
      }).slice(0, -1),
      ...text('Deployed.').slice(1),
    ]
    await withWorld(
      [asks, asks],
      async (w) => {
        const life = new CrashPoints()
        const dying = w.start(life)
        await send(dying, w.sessionId, 'm1', 'Ship it')
        const waiting = await waitFor('the approval request', async () => {
          const current = await state(dying, w.sessionId)
          return current.pendingApprovals[0]
        })
        life.crashed = new CrashError(0, 'the process died waiting for the answer')
        w.advance(DAY_MS)
        const later = w.start()
        await later
          .session(w.sessionId)
          .append(...inputs.approval(waiting, { approved: true, id: `${w.sessionId}-yes` }))
        // A reader's arrival is what wakes recovery (as `fetch` does).
        await later.runtime.run({ sessionId: w.sessionId, lane: 'admission', key: 'recover' })
        const current = await settled(later, w.sessionId)
        expect(texts(current).at(-1)).toEqual({ role: 'assistant', text: 'Deployed.' })
        const all = await events(later, w.sessionId)
        expect(all.filter((event) => event.type === 'ai.generation.superseded')).toHaveLength(1)
        expect(
          all.filter((event) => event.type === 'ai.tool.result').map((event) => event.payload),
        ).toMatchObject([{ toolCallId: 'c1', outcome: 'output' }])
        expect(current.pendingApprovals).toEqual([])
        // The user answered once, and that answer is the one the recovered turn got.
        const answers = all.filter(
          (event) =>
            event.type === 'ai.control.committed' &&
            (event.payload as { changes: { op: string }[] }).changes.some(
              (change) => change.op === 'approval.respond',
            ),
        )
        expect(answers).toHaveLength(1)
      },
      undefined,
      true,
    )
  })
}
