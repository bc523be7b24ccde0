import { randomUUID } from 'node:crypto'
import { type ToolSet, tool } from 'ai'
import { z } from 'zod'
import type { HarnessOptions } from '../../agent/harness/harness-options.ts'
import type { ModelChoice } from '../../agent/model-step/resolve-model.ts'
import { type Agent, agent } from '../../agent/wiring/agent.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import { inputs } from '../../model/inputs/inputs.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import { memoryEventStore } from '../../stores/memory/memory-event-store.ts'
import { sleep } from '../../timing/sleep.ts'
import { type CrashPoints, crashingStore } from '../crash-ports.ts'
import type { ModelCall, Step } from '../model-script.ts'

// What every feature suite of the harness conformance suite shares: the
// subject a harness is tested through, each test's world (a clock, a store,
// agents as processes over them), and the helpers the tests send messages,
// read the session and wait with.

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
export const DAY_MS = 24 * 60 * 60 * 1000
/** A2's claim TTL in these tests: a dead process's step is taken over once it passes. */
export const CLAIM_TTL_MS = 30_000

/** One test's world: a clock, a store, and agents (processes) over them. */
interface World {
  sut: HarnessUnderTest
  /** A process on the store; with `life`, one whose store calls all fail once it has died. */
  start(life?: CrashPoints): Agent
  sessionId: string
  advance(ms: number): void
  close(): Promise<void>
}

/**
 * What a test runs in: its world, made from the script, with the suite's
 * `act` tool and approval.
 */
type WithWorld = (
  script: readonly Step[],
  body: (w: World) => Promise<void>,
  tools?: ToolSet,
  approval?: boolean,
) => Promise<void>

/** The helpers of one suite run: one subject, one set of options. */
export interface ConformanceKit {
  subject: HarnessSubject
  withWorld: WithWorld
  /** Sends the user's `words` as the message `id` of the session. */
  send(a: Agent, sessionId: string, id: string, words: string): Promise<unknown>
  state(a: Agent, sessionId: string): Promise<AIState>
  events(a: Agent, sessionId: string): Promise<StoredEvent[]>
  /** Polls `check` until it finds something, failing the test after the suite's timeout. */
  waitFor<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T>
  /** The session's state once nothing is active and its inbox is empty. */
  settled(a: Agent, sessionId: string): Promise<AIState>
}

/** The helpers of a suite run on `subject`. */
export function conformanceKit(
  subject: HarnessSubject,
  options: HarnessConformanceOptions,
): ConformanceKit {
  const timeoutMs = options.timeoutMs ?? 10_000
  async function world(script: readonly Step[], tools: ToolSet = {}, approval = false) {
    let time = Date.UTC(2026, 0, 1)
    const now = () => time
    const store = await (options.store ?? ((clock) => memoryEventStore({ now: clock })))(now)
    const sut = await subject.setUp(script, { approvals: approval ? ['act'] : [] })
    const agents: Agent[] = []
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
    } satisfies World
  }
  const state = async (a: Agent, sessionId: string): Promise<AIState> =>
    (await a.session(sessionId).state()).state as AIState
  async function waitFor<T>(what: string, check: () => Promise<T | undefined | false>): Promise<T> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const found = await check()
      if (found !== undefined && found !== false) return found
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`)
      await sleep(10)
    }
  }
  return {
    subject,
    async withWorld(script, body, tools, approval) {
      const w = await world(script, tools, approval)
      try {
        await body(w)
      } finally {
        await w.close()
      }
    },
    // Event IDs are unique across a store's sessions: each test's are its session's.
    send: (a, sessionId, id, words) =>
      a.session(sessionId).append(
        ...inputs.message({
          id: `${sessionId}-${id}`,
          role: 'user',
          parts: [{ type: 'text', text: words }],
        }),
      ),
    state,
    events: (a, sessionId) => a.runtime.log.session(sessionId).read(),
    waitFor,
    settled: (a, sessionId) =>
      waitFor('the session to settle', async () => {
        await a.runtime.idle()
        const current = await state(a, sessionId)
        return current.active === null && current.inbox.items.length === 0 ? current : undefined
      }),
  }
}

/** Each message of the transcript as its role and its text. */
export const texts = (current: AIState) =>
  current.messages.map((message) => ({
    role: message.role,
    text: message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''),
  }))

/** A step that streams its parts and waits for `release()` before it finishes. */
export const hang = (parts: Step): Step =>
  Array.isArray(parts)
    ? {
        hang: true,
        parts: parts.filter((part) => part.type !== 'finish'),
        afterRelease: parts.filter((part) => part.type === 'finish'),
      }
    : parts

/** The suite's `act` tool, with what it ran (each `what`, in order). */
export function actTool() {
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
