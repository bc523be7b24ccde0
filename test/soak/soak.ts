import type { AIState } from '../../shared/model/state/ai-state.ts'
import { brokenInvariants, explain } from './checks.ts'
import { driveSession, type SessionRun } from './driver.ts'
import { soakModel } from './model.ts'
import { planSessions, type TurnKind } from './plan.ts'
import { toolRuns } from './soak-agent.ts'
import type { SoakTarget, TargetContext } from './targets.ts'

// A soak: many concurrent sessions on one store, on the configuration users
// run (a Gateway model ID through the real provider, the default generator,
// compaction on), each playing a seeded plan of turns. Every session is then
// checked on its own (checks.ts). A failure names the seed, which plans the
// same sessions again.

export interface SoakOptions {
  sessions: number
  turns: number
  seed: number
  /** Where the agent runs: the embedded default, or the local pipeline on moto. */
  target: (context: TargetContext) => Promise<SoakTarget>
  /** How often each session's user looks at its state (ms). */
  pollMs?: number
  turnTimeoutMs?: number
  /** Sessions started at once (default: all). */
  concurrency?: number
  /** Told as each session finishes, for a long run's progress line. */
  onSessionDone?: (done: number, of: number) => void
}

export interface SoakReport {
  seed: number
  sessions: number
  turns: number
  /** Turns per kind the plans asked for. */
  kinds: Record<TurnKind, number>
  seconds: number
  events: number
  modelCalls: number
  toolRuns: number
  compactions: number
  reminders: number
  /** Turn durations, from the message to the turn's end. */
  turnMs: { p50: number; p95: number; max: number }
  /** What the target did besides (kills, redeliveries). */
  target: Record<string, number>
  failures: { sessionId: string; broken: string[]; explanation: string }[]
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const plans = planSessions(options.seed, options.sessions, options.turns)
  const model = await soakModel(plans)
  const tools = toolRuns()
  const target = await options.target({ tools, catalogUrl: model.gateway.catalogUrl })
  const started = performance.now()
  const runs: SessionRun[] = []
  try {
    const queue = [...plans]
    const workers = Array.from({ length: options.concurrency ?? plans.length }, async () => {
      for (let plan = queue.shift(); plan; plan = queue.shift()) {
        runs.push(
          await driveSession(target.session(plan.sessionId), plan, {
            pollMs: options.pollMs ?? 20,
            turnTimeoutMs: options.turnTimeoutMs ?? 30_000,
          }),
        )
        options.onSessionDone?.(runs.length, plans.length)
      }
    })
    await Promise.all(workers)
    const seconds = (performance.now() - started) / 1000
    await target.settle()
    // A turn a session's own timer started after its user's last (a
    // reminder) ends too before the checks, within a turn's time: its model
    // step may be recovering from a killed container (a lease, then a
    // claim's TTL). One that does not end is still a broken invariant.
    const deadline = Date.now() + (options.turnTimeoutMs ?? 30_000)
    for (const run of runs) {
      while (Date.now() < deadline) {
        const { state } = (await target.session(run.sessionId).state()) as { state: AIState }
        if (state.active === null) break
        await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 20))
      }
    }

    const failures: SoakReport['failures'] = []
    let events = 0
    let compactions = 0
    let reminders = 0
    for (const run of runs) {
      const log = await target.read(run.sessionId)
      const { state } = (await target.session(run.sessionId).state()) as { state: AIState }
      events += log.length
      compactions += log.filter((event) => event.type === 'ai.compaction.completed').length
      reminders += state.messages.filter(
        (message) =>
          message.role === 'user' &&
          message.parts.some((part) => part.type === 'text' && part.text.startsWith('Reminder:')),
      ).length
      const broken = brokenInvariants({ run, events: log, state, spans: model.spans, tools })
      if (broken.length > 0) {
        failures.push({
          sessionId: run.sessionId,
          broken,
          explanation: explain({ events: log, state }),
        })
      }
    }
    const kinds = Object.fromEntries(
      ['text', 'tools', 'approve', 'remind', 'report', 'steer', 'stop', 'pause'].map((kind) => [
        kind,
        plans.reduce(
          (sum, plan) => sum + plan.turns.filter((turn) => turn.kind === kind).length,
          0,
        ),
      ]),
    ) as Record<TurnKind, number>
    const durations = runs.flatMap((run) => run.turnMs).sort((a, b) => a - b)
    const at = (q: number) =>
      Math.round(durations[Math.min(durations.length - 1, Math.floor(q * durations.length))] ?? 0)
    let toolCount = 0
    for (const bySession of tools.runs.values())
      for (const byKey of bySession.values()) for (const n of byKey.values()) toolCount += n
    return {
      seed: options.seed,
      sessions: options.sessions,
      turns: options.turns,
      kinds,
      seconds,
      events,
      modelCalls: model.spans.length,
      toolRuns: toolCount,
      compactions,
      reminders,
      turnMs: { p50: at(0.5), p95: at(0.95), max: Math.round(durations.at(-1) ?? 0) },
      target: target.figures(),
      failures,
    }
  } finally {
    await target.close()
    await model.close()
  }
}

/** The report as a few lines for a terminal or a test's output. */
export function describeReport(report: SoakReport): string {
  const kinds = Object.entries(report.kinds)
    .map(([kind, n]) => `${kind} ${n}`)
    .join(', ')
  const extra = Object.entries(report.target)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ')
  const lines = [
    `soak seed ${report.seed}: ${report.sessions} sessions x ${report.turns} turns (${kinds}) in ${report.seconds.toFixed(1)} s`,
    `  ${report.events} events, ${report.modelCalls} model calls, ${report.toolRuns} tool runs, ${report.compactions} compactions, ${report.reminders} reminders${extra ? `, ${extra}` : ''}`,
    `  turn time p50 ${report.turnMs.p50} ms, p95 ${report.turnMs.p95} ms, max ${report.turnMs.max} ms`,
    report.failures.length === 0
      ? '  every session: every turn ended, nothing waits, no event lost or duplicated, tools within the seeds, model calls never overlapped'
      : `  ${report.failures.length} sessions broke an invariant (rerun: npm run soak -- --seed ${report.seed} --sessions ${report.sessions} --turns ${report.turns}):`,
  ]
  for (const failure of report.failures.slice(0, 5)) {
    lines.push(
      `  ${failure.sessionId}:`,
      ...failure.broken.map((line) => `    - ${line}`),
      failure.explanation,
    )
  }
  return lines.join('\n')
}
