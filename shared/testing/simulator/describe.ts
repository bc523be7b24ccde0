import { replayCommand } from './shrink.ts'
import type { SimulationReport } from './simulation.ts'
import type { TraceLine } from './world.ts'

/**
 * A trace line as printed: step, simulated seconds since the start, who, what.
 * @internal Exported for `npm run simulate` (knip --production).
 */
export function traceLine(line: TraceLine, start: number): string {
  return `${String(line.step).padStart(6)} ${((line.at - start) / 1000).toFixed(3).padStart(9)}s ${line.who}: ${line.what}`
}

/**
 * A run's failure as a terminal shows it: the seed and its replay command,
 * what the run was, each broken invariant, the session's diagnosis and
 * timeline, and the end of the trace for that session (`traceLines` lines).
 */
export function describeFailure(report: SimulationReport, { traceLines = 80 } = {}): string {
  const start = Date.UTC(2026, 0, 1)
  const { figures, options } = report
  const lines = [
    `seed ${report.seed} broke ${report.failures.length} session(s); replay: ${replayCommand(report)}`,
    `  ${figures.sessions} sessions, ${options.processes.min}-${options.processes.max} processes x ${options.processes.slots} slots, model ${options.model.kind === 'gateway' ? `gateway (context ${options.model.contextWindow})` : 'object'}${options.serialTools ? ', serial tools' : ''}; ${figures.steps} steps, ${(figures.simulatedMs / 1000).toFixed(1)} s simulated, ${figures.kills} kills, ${figures.freezes} freezes`,
    `  faults injected: ${
      Object.entries(figures.faults)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(', ') || 'none'
    }`,
  ]
  for (const failure of report.failures) {
    lines.push(`  ${failure.sessionId}:`, ...failure.broken.map((line) => `    - ${line}`))
    lines.push(...failure.explanation.map((line) => `      ${line}`))
    const mine = report.trace.filter(
      (line) =>
        line.what.includes(`(${failure.sessionId}`) ||
        line.who === `user ${failure.sessionId}` ||
        line.what.includes(` ${failure.sessionId} `) ||
        line.what.startsWith('killed'),
    )
    lines.push(
      `    trace (last ${Math.min(traceLines, mine.length)} of ${mine.length} lines about ${failure.sessionId}):`,
    )
    lines.push(...mine.slice(-traceLines).map((line) => `      ${traceLine(line, start)}`))
  }
  return lines.join('\n')
}
