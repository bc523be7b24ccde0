import { A2Error } from '../log/error-brand.ts'
import type { ErrorStatuses } from '../log/error-statuses.ts'
import type { EventInput, StoredEvent } from '../log/event.ts'
import type { Reducer, StateSnapshot } from '../log/reducer.ts'

declare module '../log/error-brand.ts' {
  interface A2Codes {
    /** `handlerContext()` outside a tool or handler, or for another agent. */
    NO_HANDLER_CONTEXT: undefined
  }
}

/** The HTTP answer to the handler context's code: the server's mistake, said as it is. */
export const HANDLER_CONTEXT_ERROR_STATUSES: ErrorStatuses<'NO_HANDLER_CONTEXT'> = {
  NO_HANDLER_CONTEXT: 500,
}

/** When a timer fires: after a delay (`'30s'`, `'5m'`, `'2h'`, `'1d'` or milliseconds), or at a time. */
export type TimerWhen = { delay: string | number } | { at: Date | number | string }

/** The session a handler runs for, bound to the executing agent's store and scheduler. */
export interface HandlerSession<State = unknown> {
  readonly id: string
  /** Trusted server append (skips `authorize`). */
  append(...events: EventInput[]): Promise<StoredEvent[]>
  /** The agent's session state at the log's current end. */
  state(): Promise<StateSnapshot<State>>
  state<Other>(reducer: Reducer<Other, never>): Promise<StateSnapshot<Other>>
  /**
   * Sets a named one-time timer that appends `events` when it fires. The
   * same name and target time make one timer, so a retried handler converges
   * on it. A delay counts from the triggering event's timestamp, not from
   * now, for the same reason. Inside a tool, names belong to the logical
   * call: a provider that reuses a `toolCallId` in a later step sets another
   * timer under the same name, not a conflicting one.
   */
  schedule(name: string, when: TimerWhen, ...events: EventInput[]): Promise<void>
}

/** What a durable handler (an app event handler or a tool execution) runs with. */
export interface HandlerContext<Event = StoredEvent, State = unknown> {
  /** The event the handler runs for (for a tool: its `ai.tool.called` event). */
  event: Event
  /** 1 on the first run; each retry or takeover adds one. */
  attempt: number
  session: HandlerSession<State>
  /** Aborts on Stop, Pause now, an expired claim or a superseded attempt. */
  signal: AbortSignal
  /** The executing agent's name, or its contract's. */
  agentName: string
  /**
   * A key for this logical tool call (or handled event): the same on every
   * retry and recovery of it, another for a provider call ID reused in a
   * later step or turn. Pass it to APIs that deduplicate by one (a payment's
   * `Idempotency-Key`, an email provider's, an SQS deduplication ID), so a
   * repeated run has its effect once.
   */
  idempotencyKey: string
  /**
   * A durable step: runs `fn` once per logical call and records its result in
   * the session's log (an `ai.step.completed` event), so a retried or
   * recovered run gets the recorded result back instead of running `fn`
   * again, and only redoes the steps it had not finished. Names are unique
   * within a call; the result must be JSON and, encoded, fit an event
   * (`MAX_EVENT_BYTES`), or the step throws `STEP_RESULT_TOO_LARGE`.
   */
  step<T>(name: string, fn: () => T | Promise<T>): Promise<T>
}

interface ContextProvider {
  get(): HandlerContext | undefined
  run<T>(context: HandlerContext, fn: () => T): T
}

// The provider is installed by the server runtime (AsyncLocalStorage). This
// module stays isomorphic so `a2-aws/ai` can export handlerContext() to
// modules that browsers also load; there it always throws.
const PROVIDER = Symbol.for('a2-aws.handler-context')
type WithProvider = { [PROVIDER]?: ContextProvider }

export function installHandlerContextProvider(provider: ContextProvider): void {
  ;(globalThis as WithProvider)[PROVIDER] ??= provider
}

function currentHandlerContext(): HandlerContext | undefined {
  return (globalThis as WithProvider)[PROVIDER]?.get()
}

export function runInHandlerContext<T>(context: HandlerContext, fn: () => T): T {
  const provider = (globalThis as WithProvider)[PROVIDER]
  if (!provider) {
    throw new A2Error(
      'NO_HANDLER_CONTEXT',
      'No handler context provider: import a2-aws/ai/server first',
    )
  }
  return provider.run(context, fn)
}

/**
 * The running handler's durable context: `event`, `attempt`, `session` and
 * `signal`. Works anywhere below a tool's `execute` or an app event handler,
 * including awaited helpers; throws elsewhere. Pass the agent's contract to
 * type its events; it must be the executing agent's.
 *
 * @example
 * execute: async ({ reminder }, { toolCallId }) => {
 *   const ctx = handlerContext()
 *   await ctx.session.schedule(`reminder:${toolCallId}`, { delay: '1h' }, ...inputs.message(...))
 * }
 */
export function handlerContext<Context extends HandlerContext = HandlerContext>(contract?: {
  name: string
}): Context {
  const context = currentHandlerContext()
  if (!context) {
    throw new A2Error(
      'NO_HANDLER_CONTEXT',
      'handlerContext() works only inside an A2 tool execution or event handler (or runWithHandlerContext())',
    )
  }
  if (contract && contract.name !== context.agentName) {
    throw new A2Error(
      'NO_HANDLER_CONTEXT',
      `handlerContext(${contract.name}) was called while agent "${context.agentName}" executes`,
    )
  }
  return context as Context
}
