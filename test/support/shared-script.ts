import { tool } from 'ai'
import fc from 'fast-check'
import { z } from 'zod'
import { type Agent, agent } from '../../shared/agent/index.ts'
import { handlerContext, inputs } from '../../shared/ai.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import { type GatewayDouble, gatewayDouble } from '../../shared/testing/gateway-double.ts'
import {
  lastUserText,
  type ModelCall,
  type Step,
  text,
  toolCalls,
} from '../../shared/testing/model-script.ts'
import { textOf, userMessage } from './conversation.ts'

// Several sessions on one store, all driven by the same script: the same
// provider tool-call IDs (`call_0` in every step), the same timer names, the
// same Gateway model (compaction on, the catalog answering), the same
// provider failures and dead letters. Each session must finish every turn as
// it would alone: an ID derived only from what the sessions share collides
// in the store, and the second session's work is refused.

const MODEL = 'openai/gpt-5.6-terra'

/** A model step of a turn: its tool calls (none: it answers), and whether the provider fails it once first. */
interface ScriptStep {
  calls: ('lookup' | 'remind' | 'closeTicket')[]
  failFirst: boolean
}

/** A turn: its model steps, the last one an answer; whether the store gives up on its first step. */
export interface ScriptTurn {
  steps: ScriptStep[]
  deadLetter: boolean
}

/** True about once in `n`. */
const rarely = (n: number) => fc.integer({ min: 1, max: n }).map((draw) => draw === 1)

const toolStep: fc.Arbitrary<ScriptStep> = fc.record({
  calls: fc.array(fc.constantFrom('lookup' as const, 'remind' as const, 'closeTicket' as const), {
    minLength: 1,
    maxLength: 2,
  }),
  failFirst: rarely(5),
})

/** Scripts of up to `turns` turns, each with up to `toolSteps` tool steps before its answer. */
export function scriptArbitrary({
  turns = 3,
  toolSteps = 2,
}: {
  turns?: number
  toolSteps?: number
} = {}): fc.Arbitrary<ScriptTurn[]> {
  return fc.array(
    fc.record({
      steps: fc
        .tuple(fc.array(toolStep, { maxLength: toolSteps }), rarely(5))
        .map(([tools, failFirst]) => [...tools, { calls: [], failFirst }]),
      deadLetter: rarely(6),
    }),
    { minLength: 1, maxLength: turns },
  )
}

/** What every session's tools did, by session: the same script, so the same counts. */
interface Effects {
  lookups: Map<string, number>
  closed: Map<string, number>
}

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

/** The model's answer to a call: which session, turn and step it serves, read off the prompt. */
function stepFor(
  script: readonly ScriptTurn[],
  failed: Set<string>,
  call: ModelCall,
): Step | undefined {
  const last = lastUserText(call)
  const reminder = /^Reminder: (\S+)/.exec(last)
  if (reminder) return text(`noted ${reminder[1]}`)
  const asked = /^(\S+) turn (\d+)$/.exec(last)
  if (!asked) return undefined
  const [, sessionId, turnText] = asked
  const turn = script[Number(turnText)]
  // The steps this turn already took: one assistant message each since the user's.
  const since = call.messages.slice(call.messages.findLastIndex((m) => m.role === 'user') + 1)
  const stepIndex = since.filter((message) => message.role === 'assistant').length
  const step = turn?.steps[stepIndex]
  if (!step) return text('out of script')
  const key = `${sessionId}:${turnText}:${stepIndex}`
  if (step.failFirst && !failed.has(key)) {
    failed.add(key)
    // Mid-stream, so the AI SDK does not retry it: the step fails, and so the turn.
    return [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't1' },
      { type: 'text-delta', id: 't1', delta: 'Half an ans' },
      { type: 'error', error: { message: 'The provider is overloaded' } },
    ]
  }
  if (step.calls.length === 0) return text(`${sessionId} answered turn ${turnText}`, { chunks: 3 })
  return toolCalls(
    // Providers number calls per response: the same IDs in every step, turn and session.
    ...step.calls.map((toolName, position) => ({
      toolCallId: `call_${position}`,
      toolName,
      input: toolName === 'remind' ? { note: `${sessionId}` } : { ticketId: `T-${position}` },
    })),
  )
}

/** The sessions' agent: a Gateway model through the double, the default generator and compaction. */
export interface SharedScriptRun {
  agent: Agent
  gateway: GatewayDouble
  effects: Effects
  /** The runtime's warnings and errors. */
  logged: string[]
  /** Makes the store refuse the session's next few step completions (a lane that gives up). */
  breakNextSteps(sessionId: string): void
  close(): Promise<void>
}

const RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 }

export async function sharedScriptRun(
  script: readonly ScriptTurn[],
  store: EventStore,
): Promise<SharedScriptRun> {
  const failed = new Set<string>()
  const gateway = await gatewayDouble({
    script: (call) => stepFor(script, failed, call),
    catalog: { [MODEL]: { contextWindow: 400_000, maxOutputTokens: 128_000 } },
  })
  const undo = gateway.install()
  const effects: Effects = { lookups: new Map(), closed: new Map() }
  const breaks = new Map<string, number>()
  const logged: string[] = []
  const faulty: EventStore = {
    ...store,
    append: (sessionId, events, options) => {
      const left = breaks.get(sessionId) ?? 0
      if (left > 0 && events.some((event) => event.type === 'ai.generation.completed')) {
        breaks.set(sessionId, left - 1)
        return Promise.reject(new Error('ProvisionedThroughputExceededException: Rate exceeded'))
      }
      return store.append(sessionId, events, options)
    },
  }
  const tools = {
    lookup: tool({
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }) => {
        count(effects.lookups, handlerContext().session.id)
        return { ticketId, status: 'open' }
      },
    }),
    closeTicket: tool({
      inputSchema: z.object({ ticketId: z.string() }),
      execute: async ({ ticketId }) => {
        count(effects.closed, handlerContext().session.id)
        return { ticketId, closed: true }
      },
    }),
    // The seed's reminder: its timer named after the provider's toolCallId.
    remind: tool({
      inputSchema: z.object({ note: z.string() }),
      execute: async ({ note }, { toolCallId }) => {
        const ctx = handlerContext()
        await ctx.session.schedule(
          `reminder:${toolCallId}`,
          { delay: 20 },
          ...inputs.message({
            id: `reminder:${ctx.event.id}`,
            role: 'user',
            parts: [{ type: 'text', text: `Reminder: ${note}` }],
          }),
        )
        return { scheduled: true }
      },
    }),
  }
  const a = agent({
    name: 'shared-script',
    model: MODEL,
    modelCatalog: { url: gateway.catalogUrl },
    tools,
    store: faulty,
    retry: RETRY,
    // A clock that reads the same for every session for a second at a time,
    // as two processes' clocks do: an ID built on a reading repeats.
    now: () => Math.floor(Date.now() / 1000) * 1000,
    // What a refusal for another session's IDs would say is kept, to be checked.
    logger: {
      info() {},
      warn: (line: string) => void logged.push(line),
      error: (line: string) => void logged.push(line),
    },
    harness: { type: 'ai-sdk', generation: { toolApproval: { closeTicket: 'user-approval' } } },
  })
  return {
    agent: a as unknown as Agent,
    gateway,
    effects,
    logged,
    // Each attempt's append is sent twice: the log sends one whose outcome
    // it cannot tell (a throttling error) once more itself.
    breakNextSteps: (sessionId) => breaks.set(sessionId, RETRY.maxAttempts * 2),
    async close() {
      a.runtime.close()
      undo()
      await gateway.close()
    },
  }
}

/**
 * Plays the script in one session, as its user would: each turn's message,
 * approving each tool that asks, retrying a failed turn, until the turn and
 * the reminders it set are answered.
 */
export async function playSession(
  run: SharedScriptRun,
  sessionId: string,
  script: readonly ScriptTurn[],
  timeoutMs: number,
): Promise<void> {
  const session = run.agent.session(sessionId)
  let retries = 0
  for (const [turn, plan] of script.entries()) {
    if (plan.deadLetter) run.breakNextSteps(sessionId)
    const messageId = `${sessionId}-t${turn}`
    await session.append(...inputs.message(userMessage(messageId, `${sessionId} turn ${turn}`)))
    const deadline = Date.now() + timeoutMs
    for (;;) {
      // Acts once the runtime has settled, rather than polling the store:
      // on moto, which serves one request at a time, polling starves the lanes.
      await run.agent.runtime.idle()
      const refused = run.logged.find((line) => line.includes('already stored'))
      if (refused) throw new Error(`refused for another session's IDs: ${refused}`)
      const { state } = await session.state()
      const pending = state.pendingApprovals[0]
      if (pending) {
        await session.append(
          ...inputs.approval(pending, {
            approved: true,
            id: `${sessionId}-a-${pending.approvalId}`,
          }),
        )
      } else if (state.active?.phase === 'failed') {
        await session.append(
          ...inputs.retry({ turnId: state.active.turnId, retryId: `${sessionId}-r${retries++}` }),
        )
      } else if (
        state.active === null &&
        state.inbox.items.length === 0 &&
        state.messages.some((message) => message.id === messageId) &&
        answeredAll(state.messages)
      ) {
        break
      } else {
        if (Date.now() > deadline) {
          throw new Error(`${sessionId}: turn ${turn} did not end within ${timeoutMs} ms`)
        }
        // A timer (a reminder) may be about to fire.
        await new Promise((resolve) => setTimeout(resolve, 25))
      }
    }
  }
}

/** Every user message has an assistant answer after it. */
function answeredAll(messages: readonly { role: string }[]): boolean {
  return messages.length > 0 && messages.at(-1)?.role === 'assistant'
}

/**
 * What must hold of every session that played the script, whatever the
 * others did: each of its turns answered once, nothing active or queued, the
 * only dead letters the ones the script asked for (each a failed turn that
 * was retried), and the model's metadata recorded for the session itself.
 */
export async function problemsOf(
  run: SharedScriptRun,
  sessionId: string,
  script: readonly ScriptTurn[],
): Promise<string[]> {
  const { state } = await run.agent.session(sessionId).state()
  const problems: string[] = []
  const answers = state.messages
    .filter((message) => message.role === 'assistant')
    .map((message) => textOf(message))
  for (const turn of script.keys()) {
    const answer = `${sessionId} answered turn ${turn}`
    const times = answers.filter((text) => text.endsWith(answer)).length
    if (times !== 1) problems.push(`turn ${turn} answered ${times} times`)
  }
  if (state.active !== null) problems.push(`a turn is still ${state.active.phase}`)
  if (state.inbox.items.length > 0) problems.push(`${state.inbox.items.length} inputs still queued`)
  const unanswered = state.messages.filter(
    (message, i) => message.role === 'user' && state.messages[i + 1]?.role !== 'assistant',
  )
  if (unanswered.length > 0) problems.push(`${unanswered.length} user messages unanswered`)
  const expected = script.filter((turn) => turn.deadLetter).length
  const letters = state.deadLetters.map((letter) => `${letter.lane}: ${letter.error}`)
  if (
    letters.length !== expected ||
    state.deadLetters.some((letter) => letter.lane !== 'generation')
  ) {
    problems.push(
      `dead letters ${JSON.stringify(letters)}, expected ${expected} of the generation lane`,
    )
  }
  if (state.modelMetadata[MODEL]?.status !== 'resolved') {
    problems.push(`model metadata ${JSON.stringify(state.modelMetadata[MODEL])}`)
  }
  return problems.map((problem) => `${sessionId}: ${problem}`)
}
