import type { LanguageModelV4StreamPart } from '@ai-sdk/provider'
import { type ToolSet, tool } from 'ai'
import { z } from 'zod'
import type { AgentOptions } from '../../agent/wiring/agent-options.ts'
import { idempotentId } from '../../model/ids/idempotent-id.ts'
import { inputs } from '../../model/inputs/inputs.ts'
import { handlerContext } from '../../runtime/handler-context.ts'
import { lastUserText, type Step, text, toolCalls } from '../model-script.ts'
import type { SimModelCall } from './sim-model.ts'
import type { SessionPlan } from './workload.ts'
import type { World } from './world.ts'

/**
 * What the workload's tools did, per logical call: how often each tool's
 * `execute` ran (raw, crashes and all), with which idempotency keys, and the
 * effects the fake services performed (each deduplicating by key).
 */
export class ToolLedger {
  /** `tool \0 session \0 ai.tool.called ID \0 life` -> runs of execute. */
  readonly runs = new Map<string, number>()
  /** The same call -> the idempotency keys its runs saw (one, always). */
  readonly keys = new Map<string, Set<string>>()
  /** Effects performed by a service that deduplicates: `service \0 session \0 key` -> times. */
  readonly effects = new Map<string, number>()
  /**
   * Who performed each effect: the logical call (`tool \0 session \0 call ID \0 life`)
   * or handled event whose run got there first. Another call under the
   * same key is deduplicated away: its intent was never carried out.
   */
  readonly performedBy = new Map<string, string>()
  /** Raw runs of a `ctx.step` body: `session \0 key` -> times. */
  readonly stepBodies = new Map<string, number>()
  /** The app handler's runs: `session \0 handled event ID \0 life` -> the idempotency keys they saw. */
  readonly handled = new Map<string, Set<string>>()
  /** Runs of a tool on input its schema, as the version running it has it, refuses: never allowed. */
  readonly refusedInputRuns: { call: string; says: string }[] = []

  ran(toolName: string): { sessionId: string; key: string; call: string } {
    const ctx = handlerContext()
    const call = callOf(toolName, ctx.session.id, ctx.event.id, ctx.event.life)
    this.runs.set(call, (this.runs.get(call) ?? 0) + 1)
    const keys = this.keys.get(call) ?? new Set()
    keys.add(ctx.idempotencyKey)
    this.keys.set(call, keys)
    return { sessionId: ctx.session.id, key: ctx.idempotencyKey, call }
  }

  /** A service that, like Stripe's, performs once per idempotency key (for `by`, a logical call). */
  perform(service: string, sessionId: string, key: string, by: string): void {
    const effect = `${service}\u0000${sessionId}\u0000${key}`
    if (this.effects.has(effect)) return
    this.effects.set(effect, 1)
    this.performedBy.set(effect, by)
  }
}

/**
 * A logical tool call's name in the ledger: its tool, session, `ai.tool.called` ID and life.
 * @internal Exported for its test (knip --production).
 */
export function callOf(toolName: string, sessionId: string, callId: string, life: string): string {
  return `${toolName}\u0000${sessionId}\u0000${callId}\u0000${life}`
}

/**
 * The workload's agent: tools that do effects (keyed, in a durable step,
 * under `'report'`), need approval, set timers, take simulated time.
 */
export function workloadAgentOptions(
  world: World,
  ledger: ToolLedger,
  owner: () => number | undefined,
  {
    handlers = true,
    serialTools = false,
    version,
  }: {
    /** With the app handler (only runs that place orders: every handler adds a lane to each append's work). */
    handlers?: boolean
    /** Local tools one at a time (`toolLane: 'tools'`), not concurrently. */
    serialTools?: boolean
    /** A run with a deploy: which of the two versions (default: neither, the agent's derived version). */
    version?: WorkloadVersion
  } = {},
) {
  // Version 2's ticket system has two-digit numbers: a call version 1's model made does not fit.
  const closeTicketInput = z.object({
    ticketId: version === 'sim-v2' ? z.string().regex(/^T-\d{2,}$/) : z.string(),
  })
  const tools = {
    lookup: tool({
      description: 'Look a ticket up',
      inputSchema: z.object({ ticketId: z.string(), ms: z.number() }),
      execute: async ({ ticketId, ms }, { abortSignal }) => {
        ledger.ran('lookup')
        await world.sleep(owner(), ms, abortSignal)
        return { ticketId, status: 'open' }
      },
    }),
    charge: tool({
      description: 'Charge the customer',
      inputSchema: z.object({ amount: z.number() }),
      execute: async ({ amount }) => {
        const { sessionId, key, call } = ledger.ran('charge')
        ledger.perform('payments', sessionId, key, call)
        return { chargeId: `ch_${amount}` }
      },
    }),
    email: tool({
      description: 'Email the customer',
      inputSchema: z.object({ to: z.string() }),
      execute: async ({ to }) => {
        const { sessionId, key, call } = ledger.ran('email')
        const ctx = handlerContext()
        const sent = await ctx.step('send', () => {
          const body = `${sessionId}\u0000${key}`
          ledger.stepBodies.set(body, (ledger.stepBodies.get(body) ?? 0) + 1)
          ledger.perform('email', sessionId, `${key}:email`, call)
          return { messageId: `mail-${to}` }
        })
        return sent
      },
    }),
    runCommand: tool({
      description: 'Run a shell command',
      // A command may take a while (`ms`): what a control played while it runs meets.
      inputSchema: z.object({ command: z.string(), ms: z.number().optional() }),
      execute: async ({ command, ms }, { abortSignal }) => {
        ledger.ran('runCommand')
        if (ms !== undefined) await world.sleep(owner(), ms, abortSignal)
        return { command, exitCode: 0 }
      },
    }),
    closeTicket: tool({
      description: 'Close a ticket',
      inputSchema: closeTicketInput,
      execute: async ({ ticketId }) => {
        const { call } = ledger.ran('closeTicket')
        // The tool trusts its schema; A2 promised no input it refuses gets here.
        if (!closeTicketInput.safeParse({ ticketId }).success)
          ledger.refusedInputRuns.push({
            call,
            says: `${JSON.stringify({ ticketId })} under ${version}`,
          })
        return { ticketId, closed: true }
      },
    }),
    askCity: tool({
      description: 'Ask the user which city',
      inputSchema: z.object({}),
      execute: async (_input, { toolCallId }) => {
        ledger.ran('askCity')
        const ctx = handlerContext()
        await ctx.session.append(
          ...inputs.requestInput({
            inputRequestId: idempotentId('ask-city', ctx.event.id),
            toolCallId,
            request: { question: 'Which city?' },
          }),
        )
        return { asked: true }
      },
    }),
    placeOrder: tool({
      description: 'Place an order (a handler ships it)',
      inputSchema: z.object({ item: z.string() }),
      execute: async ({ item }) => {
        ledger.ran('placeOrder')
        const ctx = handlerContext()
        await ctx.session.append({
          id: idempotentId('order', ctx.event.id),
          type: 'sim.order.placed',
          payload: { item },
        })
        return { placed: item }
      },
    }),
    remind: tool({
      description: 'Remind the user later',
      inputSchema: z.object({ note: z.string(), delayMs: z.number() }),
      execute: async ({ note, delayMs }, { toolCallId }) => {
        ledger.ran('remind')
        const ctx = handlerContext()
        await ctx.session.schedule(
          `reminder:${toolCallId}`,
          { delay: delayMs },
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
  const shipping: NonNullable<AgentOptions<ToolSet>['handlers']> = {
    // An app event handler, at least once: it ships each order through a
    // service that deduplicates by the handler's idempotency key.
    'sim.order.placed': async ({ event, session, idempotencyKey }) => {
      const handled = `${session.id}\u0000${event.id}\u0000${event.life}`
      const keys = ledger.handled.get(handled) ?? new Set()
      keys.add(idempotencyKey)
      ledger.handled.set(handled, keys)
      await world.sleep(owner(), 30)
      ledger.perform('shipping', session.id, idempotencyKey, handled)
    },
  }
  return {
    name: 'sim-agent',
    ...(version === undefined ? {} : { version }),
    tools,
    handlers: handlers ? shipping : {},
    toolRecovery: { runCommand: 'report' },
    ...(serialTools ? { toolLane: 'tools' as const } : {}),
    harness: {
      type: 'ai-sdk',
      maxSteps: WORKLOAD_MAX_STEPS,
      generation: { toolApproval: { closeTicket: 'user-approval' } },
    },
  } satisfies Omit<AgentOptions<typeof tools>, 'model'>
}

/** The workload agent's versions in a run with a deploy (`simulate({ deploys: true })`). */
export type WorkloadVersion = 'sim-v1' | 'sim-v2'

/** The ticket each version's model closes: one its own `closeTicket` schema accepts. */
const closedTicket = (version: WorkloadVersion | undefined): string =>
  version === 'sim-v2' ? 'T-19' : 'T-9'

/**
 * Model steps per response: above every turn's but the one whose model
 * calls a tool at every step (a `max-steps` twist), which ends there.
 */
export const WORKLOAD_MAX_STEPS = 4

/** A step that streams a little, then waits to be stopped or paused. */
const hanging: Step = {
  hang: true,
  parts: [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't1' },
    { type: 'text-delta', id: 't1', delta: 'Let me think about this for a while' },
  ] satisfies LanguageModelV4StreamPart[],
}

/** The user's text for a turn: `[s0 t2] charge`. */
export const turnText = (sessionId: string, turn: number, kind: string): string =>
  `[${sessionId} t${turn}] ${kind}`

/**
 * The model of the workload: what each call answers, from the session's
 * plan and the call's prompt (its last user message says the turn, the
 * assistant messages since it say the step), so a step run again after a
 * crash or a fault gets the same answer.
 */
export function workloadScript(
  plans: readonly SessionPlan[],
  version?: WorkloadVersion,
): (call: SimModelCall) => Step {
  const bySession = new Map(plans.map((plan) => [plan.sessionId, plan]))
  const hungOnce = new Set<string>()
  return (call) => {
    const said = lastUserText(call)
    if (said.startsWith('Reminder: ')) return text(`Reminded: ${said.slice(10)}`, { chunks: 3 })
    const asked = /^\[(\S+) t(\d+)\] (\S+)/.exec(said)
    const turn = asked ? bySession.get(asked[1] as string)?.turns[Number(asked[2])] : undefined
    if (!asked || !turn) return text(`Noted: ${said.slice(0, 40)}`, { chunks: 2 })
    const said2 = asked[3] as string
    if (said2 !== turn.kind) return text(`Done: ${said2}`, { chunks: 3 })
    const since = call.messages.slice(call.messages.findLastIndex((m) => m.role === 'user') + 1)
    const step = since.filter((message) => message.role === 'assistant').length
    // A model that calls a tool at every step: the response ends at maxSteps.
    if (turn.twist === 'max-steps')
      return toolCalls({
        toolCallId: 'call_0',
        toolName: 'lookup',
        input: { ticketId: `T-${step}`, ms: 20 },
      })
    if (step > 0) return text(`Turn ${asked[2]} done.`, { chunks: 4 })
    const position = `${asked[1]}:${asked[2]}`
    switch (turn.kind) {
      case 'queue':
        // Queued inputs to move or send now: the turn runs a while (a slow lookup).
        if (turn.twist !== undefined)
          return toolCalls({
            toolCallId: 'call_0',
            toolName: 'lookup',
            input: { ticketId: 'T-4', ms: 6_000 },
          })
        return text(`Answer to turn ${asked[2]}, in several chunks.`, { chunks: 6 })
      case 'text':
      case 'pause-after-turn':
      case 'passive':
        return text(`Answer to turn ${asked[2]}, in several chunks.`, { chunks: 6 })
      case 'tools':
        return toolCalls(
          { toolCallId: 'call_0', toolName: 'lookup', input: { ticketId: 'T-1', ms: 20 } },
          { toolCallId: 'call_1', toolName: 'lookup', input: { ticketId: 'T-2', ms: 50 } },
        )
      case 'charge':
        return toolCalls({ toolCallId: 'call_0', toolName: 'charge', input: { amount: 5 } })
      case 'email':
        return toolCalls({ toolCallId: 'call_0', toolName: 'email', input: { to: 'ann' } })
      case 'report':
        // A slow command for a control played while it runs.
        return toolCalls({
          toolCallId: 'call_0',
          toolName: 'runCommand',
          input: turn.twist === undefined ? { command: 'ls' } : { command: 'make', ms: 6_000 },
        })
      case 'approve':
        return toolCalls({
          toolCallId: 'call_0',
          toolName: 'closeTicket',
          input: { ticketId: closedTicket(version) },
        })
      case 'remind':
        return toolCalls({
          toolCallId: 'call_0',
          toolName: 'remind',
          input: { note: position, delayMs: turn.delayMs },
        })
      case 'ask':
        return toolCalls({ toolCallId: 'call_0', toolName: 'askCity', input: {} })
      case 'order':
        return toolCalls({ toolCallId: 'call_0', toolName: 'placeOrder', input: { item: 'lamp' } })
      case 'steer':
        return toolCalls({
          toolCallId: 'call_0',
          toolName: 'lookup',
          input: { ticketId: 'T-3', ms: 8_000 },
        })
      case 'stop':
        return hanging
      case 'pause':
        if (hungOnce.has(position)) return text(`Resumed turn ${asked[2]}.`, { chunks: 3 })
        hungOnce.add(position)
        return hanging
    }
  }
}
