import { randomUUID } from 'node:crypto'
import { type ToolSet, tool } from 'ai'
import { z } from 'zod'
import type { HarnessOptions } from '../agent/harness/harness-options.ts'
import type { ModelChoice } from '../agent/model-step/resolve-model.ts'
import { type Agent, agent } from '../agent/wiring/agent.ts'
import type { StoredEvent } from '../log/event.ts'
import type { EventStore } from '../log/event-store.ts'
import { inputs } from '../model/inputs/inputs.ts'
import type { AIState } from '../model/state/ai-state.ts'
import { memoryEventStore } from '../stores/memory/memory-event-store.ts'
import { sleep } from '../timing/sleep.ts'
import { CrashError, CrashPoints, crashingStore } from './crash-ports.ts'
import type { ConformanceTestApi } from './event-store-conformance.ts'
import { gatewayDouble } from './gateway-double.ts'
import { lastUserText, type ModelCall, type Step, text, toolCalls } from './model-script.ts'
import { callOfPrompt, type PromptMessage } from './prompt-call.ts'
import { scriptedModel } from './scripted-model.ts'

/** A harness running a script: the options that make an agent run it, and what its model saw. */
export interface HarnessUnderTest {
  /** The agent's `model` (a Gateway ID through a double, a scripted AI SDK model). */
  model: ModelChoice
  harness: HarnessOptions
  /** The model calls the loop made so far, in order, as the model saw them. */
  calls(): readonly ModelCall[]
  /** Lets the hanging steps of the script finish. */
  release(): void
  close?(): void | Promise<void>
}

/** A harness as the suite runs it. */
export interface HarnessSubject {
  /** Sets the harness up to answer each model step with the script's next step. */
  setUp(script: readonly Step[], setup?: HarnessSetUp): HarnessUnderTest | Promise<HarnessUnderTest>
  /**
   * Whether the loop's tool calls run in A2's tools lane (the AI SDK's, Pi's
   * loop). An external loop that runs its own tools (FX over ACP) says
   * `false`, and the suite checks its calls arrive as provider-executed
   * calls with their results, and its permission requests as approvals.
   */
  a2Tools: boolean
}

/** What a test asks of the loop beyond its script. */
export interface HarnessSetUp {
  /**
   * The tools whose calls need the user's approval. A2 asks for the calls
   * it runs (the suite sets `toolApproval`); a loop that runs its own tools
   * asks through its own protocol (an ACP permission request).
   */
  approvals: readonly string[]
}

export interface HarnessConformanceOptions {
  /** A fresh store per test, on the suite's clock (default: the memory store). */
  store?: (now: () => number) => EventStore | Promise<EventStore>
  /** How long a test waits for the session to settle (default 10 s). */
  timeoutMs?: number
}

const quiet = { info() {}, warn() {}, error() {} }
const DAY_MS = 24 * 60 * 60 * 1000
/** A2's claim TTL in these tests: a dead process's step is taken over once it passes. */
const CLAIM_TTL_MS = 30_000

/**
 * The seed rules every agent loop must keep, run against one harness: a
 * turn's durable sequence, tools as soon as their input is ready, approvals
 * answered a day later by another process, Stop at the frontier the user
 * saw, Steer at a step boundary, Pause now and Resume, retry of a failed
 * call, a step taken over from a process that died, and model calls of a
 * session that never overlap. Like the store suite, run it on your own
 * harness from a vitest file.
 *
 * @example
 * import { describe, expect, it } from 'vitest'
 * import { describeHarnessConformance, scriptedModel } from 'a2-aws/test'
 *
 * describeHarnessConformance('ai-sdk', {
 *   a2Tools: true,
 *   setUp(script) {
 *     const model = scriptedModel([...script])
 *     return { model: model.model, harness: { type: 'ai-sdk' }, calls: () => [], release: model.release }
 *   },
 * }, { describe, it, expect })
 */
export function describeHarnessConformance(
  name: string,
  subject: HarnessSubject,
  { describe, it, expect }: ConformanceTestApi,
  options: HarnessConformanceOptions = {},
): void {
  const timeoutMs = options.timeoutMs ?? 10_000

  /** One test's world: a clock, a store, and agents (processes) over them. */
  async function world(script: readonly Step[], tools: ToolSet = {}, approval = false) {
    let time = Date.UTC(2026, 0, 1)
    const now = () => time
    const store = await (options.store ?? ((clock) => memoryEventStore({ now: clock })))(now)
    const sut = await subject.setUp(script, { approvals: approval ? ['act'] : [] })
    const agents: Agent[] = []
    /** A process on the store; with `life`, one whose store calls all fail once it has died. */
    const start = (life?: CrashPoints): Agent => {
      const a = agent({
        name: `conformance-${randomUUID()}`,
        model: sut.model,
        ...(Object.keys(tools).length > 0 ? { tools } : {}),
        harness: {
          ...sut.harness,
          ...(approval && subject.a2Tools
            ? {
                generation: {
                  ...(sut.harness as { generation?: object }).generation,
                  toolApproval: { act: 'user-approval' },
                },
              }
            : {}),
        } as HarnessOptions,
        store: life ? crashingStore(store, life, () => {}) : store,
        now,
        claimTtlMs: CLAIM_TTL_MS,
        logger: quiet,
      } as Parameters<typeof agent>[0])
      agents.push(a)
      return a
    }
    const sessionId = `s-${randomUUID()}`
    return {
      sut,
      start,
      sessionId,
      advance(ms: number) {
        time += ms
      },
      async close() {
        sut.release()
        for (const a of agents) a.runtime.close()
        await sut.close?.()
      },
    }
  }
  type World = Awaited<ReturnType<typeof world>>

  // Event IDs are unique across a store's sessions: each test's are its session's.
  const send = (a: Agent, sessionId: string, id: string, words: string) =>
    a.session(sessionId).append(
      ...inputs.message({
        id: `${sessionId}-${id}`,
        role: 'user',
        parts: [{ type: 'text', text: words }],
      }),
    )
  const state = async (a: Agent, sessionId: string): Promise<AIState> =>
    (await a.session(sessionId).state()).state as AIState
  const events = (a: Agent, sessionId: string): Promise<StoredEvent[]> =>
    a.runtime.log.session(sessionId).read()
  async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = await check()
      if (found !== undefined && found !== false) return found
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
      await sleep(10)
    }
  }
  const settled = (a: Agent, sessionId: string) =>
    waitFor('the session to settle', async () => {
      await a.runtime.idle()
      const current = await state(a, sessionId)
      return current.active === null && current.inbox.items.length === 0 ? current : undefined
    })
  const texts = (current: AIState) =>
    current.messages.map((message) => ({
      role: message.role,
      text: message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    }))
  const withWorld = async (
    script: readonly Step[],
    body: (w: World) => Promise<void>,
    tools?: ToolSet,
    approval?: boolean,
  ) => {
    const w = await world(script, tools, approval)
    try {
      await body(w)
    } finally {
      await w.close()
    }
  }
  const hang = (parts: Step): Step =>
    Array.isArray(parts)
      ? {
          hang: true,
          parts: parts.filter((part) => part.type !== 'finish'),
          afterRelease: parts.filter((part) => part.type === 'finish'),
        }
      : parts

  describe(`${name}: the harness contract`, () => {
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

    if (subject.a2Tools) {
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
    } else {
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
      const script: Step[] = [
        { hang: true, parts: text('Half').slice(0, -2) },
        text('Whole answer.'),
      ]
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
          (await events(dying, w.sessionId)).some(
            (event) => event.type === 'ai.generation.progress',
          ),
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
  })
}

/**
 * A harness on `scriptedModel()`, the AI SDK's own test model: the subject
 * for a loop that runs on the agent's AI SDK model (the AI SDK's, Pi's).
 *
 * @example
 * describeHarnessConformance('pi', scriptedSubject({ type: 'pi' }), { describe, it, expect })
 */
export function scriptedSubject(harness: HarnessOptions): HarnessSubject {
  return {
    a2Tools: true,
    setUp(script) {
      const scripted = scriptedModel([...script])
      return {
        model: scripted.model,
        harness,
        calls: () =>
          scripted.calls.map((call) =>
            callOfPrompt('script', call.prompt as PromptMessage[], call.tools, call),
          ),
        release: () => scripted.release(),
      }
    },
  }
}

/**
 * A harness on `gatewayDouble()`: the agent's model is a Gateway model ID
 * (`openai/gpt-5.6-terra`) that the real `@ai-sdk/gateway` provider sends
 * to a local double of AI Gateway. Compaction is off, so the catalog stays
 * out of the turn's sequence.
 *
 * @example
 * describeHarnessConformance('pi', gatewaySubject({ type: 'pi' }), { describe, it, expect })
 */
export function gatewaySubject(harness: Exclude<HarnessOptions, { type: 'fx' }>): HarnessSubject {
  return {
    a2Tools: true,
    async setUp(script) {
      const gateway = await gatewayDouble({ script: [...script] })
      const undo = gateway.install()
      return {
        model: 'openai/gpt-5.6-terra',
        harness: { ...harness, compaction: false },
        calls: () => gateway.calls,
        release: () => gateway.release(),
        async close() {
          undo()
          await gateway.close()
        },
      }
    },
  }
}

/** The suite's `act` tool, with what it ran (each `what`, in order). */
function actTool() {
  const ran: string[] = []
  const tools = {
    act: tool({
      inputSchema: z.object({ what: z.string() }),
      execute: async ({ what }) => {
        ran.push(what)
        return { done: what }
      },
    }),
  }
  return { ran, tools }
}
