import type { ToolSet } from 'ai'
import type { AgentOptions } from '../../agent/wiring/agent-options.ts'
import type { StoredEvent } from '../../log/event.ts'
import { type HandlerContext, handlerContext } from '../../runtime/handler-context.ts'
import type { EffectLedger } from '../crash-run.ts'
import { lastUserText, type Step, text } from '../model-script.ts'
import type { SimModelCall } from './sim-model.ts'
import type { ToolLedger } from './workload-agent.ts'

/**
 * Your agent's options as the simulator runs them: it owns the model, the
 * store, the dispatch, the timers and the clock (and the claims' time).
 */
export type SimulatedAgentOptions<Tools extends ToolSet = ToolSet> = Omit<
  AgentOptions<Tools>,
  | 'model'
  | 'store'
  | 'dispatcher'
  | 'scheduler'
  | 'now'
  | 'timers'
  | 'retry'
  | 'claimTtlMs'
  | 'modelCatalog'
  | 'logger'
>

/** Your agent in place of the simulator's own workload (`simulate({ seed, agent })`). */
export interface SimulatedAgent<Tools extends ToolSet = ToolSet> {
  /** What you pass to `agent()`: tools, contract, handlers, instructions, harness, toolRecovery. */
  options: SimulatedAgentOptions<Tools>
  /**
   * The model's answers. Steps: step N of every turn answers with the Nth
   * (the last one repeats), N counted as the assistant messages since the
   * turn's user message, so a step run again after a crash or a fault gets
   * the same answer. Or a function of the call (its `sessionId`, its
   * messages: `lastUserText(call)`).
   */
  model: readonly Step[] | ((call: SimModelCall) => Step)
  /** What the simulated users say: each turn's message is one of these (default: one greeting). */
  messages?: readonly string[]
  /**
   * Your tools' fake services (`effectLedger()`): an effect one logical
   * tool call (or handled event) performs again in another run of it (a
   * retry, a recovery after a crash) breaks an invariant.
   */
  effects?: readonly EffectLedger[]
}

/** The model's answer to a call: the simulator's own compaction summaries, else the script's. */
export function withSummaries(script: (call: SimModelCall) => Step): (call: SimModelCall) => Step {
  return (call) => {
    const said = lastUserText(call)
    if (said.startsWith('Summarize')) return text(`Summary of ${call.sessionId}.`)
    return script(call)
  }
}

/** A `SimulatedAgent`'s model as a script of calls. */
export function userScript(model: SimulatedAgent['model']): (call: SimModelCall) => Step {
  if (typeof model === 'function') return model
  return (call) => {
    const since = call.messages.slice(call.messages.findLastIndex((m) => m.role === 'user') + 1)
    const step = since.filter((message) => message.role === 'assistant').length
    return model[Math.min(step, model.length - 1)] ?? text('Done.')
  }
}

/** Each tool's `execute` counted in the ledger (its runs, its idempotency keys). */
export function countedTools<Tools extends ToolSet>(tools: Tools, ledger: ToolLedger): Tools {
  const wrapped: ToolSet = {}
  for (const [name, definition] of Object.entries(tools)) {
    const execute = definition.execute as
      | ((input: unknown, options: unknown) => unknown)
      | undefined
    wrapped[name] = execute
      ? ({
          ...definition,
          execute: (input: unknown, options: unknown) => {
            ledger.ran(name)
            return execute(input, options)
          },
        } as ToolSet[string])
      : definition
  }
  return wrapped as Tools
}

/** The names of the tools `options` run under `toolRecovery: 'report'`, and those that need approval. */
export function toolPolicies(options: Pick<AgentOptions<ToolSet>, 'toolRecovery' | 'harness'>): {
  report: string[]
  approval: string[]
} {
  const report = Object.entries(options.toolRecovery ?? {})
    .filter(([, recovery]) => recovery === 'report')
    .map(([name]) => name)
  const generation = (options.harness as { generation?: { toolApproval?: unknown } } | undefined)
    ?.generation
  const policies = (generation?.toolApproval ?? {}) as Record<string, unknown>
  const approval = Object.entries(policies)
    .filter(([, policy]) => policy === 'user-approval')
    .map(([name]) => name)
  return { report, approval }
}

/** One logical call's (or handled event's) effects, per run of it. */
interface EffectCall {
  sessionId: string
  what: string
  runs: Map<HandlerContext, Map<string, number>>
}

/**
 * The effects your ledgers performed, each attributed to the run of the
 * tool call or handler that performed it (`handlerContext()`: one per run;
 * its `idempotencyKey` names the logical call).
 */
export class EffectRuns {
  readonly calls = new Map<string, EffectCall>()

  record(ledger: string, what: string, performed: boolean): void {
    if (!performed) return
    let context: HandlerContext
    try {
      context = handlerContext()
    } catch {
      return
    }
    const sessionId = context.session.id
    const key = `${sessionId}\u0000${context.idempotencyKey}`
    const call = this.calls.get(key) ?? {
      sessionId,
      what: describeWork(context.event as StoredEvent),
      runs: new Map(),
    }
    this.calls.set(key, call)
    const run = call.runs.get(context) ?? new Map<string, number>()
    call.runs.set(context, run)
    const effect = `${ledger}: ${JSON.stringify(what)}`
    run.set(effect, (run.get(effect) ?? 0) + 1)
  }

  /** Each effect a logical call performed more often over its runs than in any one of them. */
  broken(sessionId: string): string[] {
    const broken: string[] = []
    for (const call of this.calls.values()) {
      if (call.sessionId !== sessionId) continue
      const runs = [...call.runs.values()]
      const effects = new Set(runs.flatMap((run) => [...run.keys()]))
      for (const effect of effects) {
        const counts = runs.map((run) => run.get(effect) ?? 0)
        const total = counts.reduce((sum, n) => sum + n, 0)
        const most = Math.max(...counts)
        if (total > most) {
          broken.push(
            `${effect} performed ${total} times by ${call.what} over ${counts.filter((n) => n > 0).length} runs (${most} in one run): a run again repeated it (an effect without idempotencyKey or ctx.step?)`,
          )
        }
      }
    }
    return broken
  }
}

function describeWork(event: StoredEvent): string {
  if (event.type === 'ai.tool.called') {
    const { toolName } = event.payload as { toolName?: string }
    return `${toolName} call ${event.id}`
  }
  return `the handler of ${event.type} ${event.id}`
}
