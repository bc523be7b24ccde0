import { FAULT_KINDS, type FaultKind } from './faults.ts'
import { type SimulationOptions, type SimulationReport, simulate } from './simulation.ts'

interface ShrinkOptions {
  /** Runs a shrink may try (default 40). */
  budget?: number
  /** Told after each try. */
  onTry?: (options: SimulationOptions, failed: boolean) => void
}

/**
 * A failing run made smaller: the same seed with only the failing session,
 * fewer turns, and only the fault kinds it needs, each step kept only while
 * the run still fails. What comes back replays exactly (`replayCommand`).
 */
export async function shrink(
  failing: SimulationReport,
  { budget = 40, onTry }: ShrinkOptions = {},
): Promise<SimulationReport> {
  let best = failing
  let tries = 0
  const attempt = async (options: SimulationOptions): Promise<boolean> => {
    if (tries++ >= budget) return false
    const report = await simulate(options)
    const failed = report.failures.length > 0
    onTry?.(options, failed)
    if (failed) best = report
    return failed
  }
  const base = (): SimulationOptions => optionsOf(best)

  // One failing session, when the failure is one session's.
  const indexes = best.failures.map((failure) => Number(failure.sessionId.slice(1)))
  for (const index of indexes) {
    if (best.options.only?.length === 1) break
    if (await attempt({ ...base(), only: [index] })) break
  }
  // Fewer turns.
  for (let turns = 1; turns < best.options.turns; turns++) {
    if (await attempt({ ...base(), turns })) break
  }
  // No faults at all, else each fault kind it does without.
  if (!(await attempt({ ...base(), faults: [] }))) {
    for (const kind of FAULT_KINDS) {
      if (!best.options.faults.includes(kind)) continue
      await attempt({ ...base(), faults: best.options.faults.filter((k) => k !== kind) })
    }
  }
  return best
}

/** The options that replay a report's run. */
function optionsOf(report: SimulationReport): SimulationOptions {
  const { options } = report
  return {
    seed: report.seed,
    sessions: options.sessions,
    turns: options.turns,
    processes: options.processes,
    model: options.model,
    faults: options.faults,
    ...(options.only ? { only: options.only } : {}),
    ...(options.kinds ? { kinds: options.kinds } : {}),
    ...(options.agent ? { agent: options.agent } : {}),
    ...(options.day ? { day: true } : {}),
  }
}

/** The command line that replays a report's run (of your agent: the `simulate()` call). */
export function replayCommand(report: SimulationReport): string {
  const { options } = report
  if (options.agent) {
    const narrowed = [
      `seed: ${report.seed}`,
      'agent',
      ...(options.only ? [`only: [${options.only.join(', ')}]`] : []),
      ...(options.turns !== 4 ? [`turns: ${options.turns}`] : []),
      ...(options.faults.length !== FAULT_KINDS.length
        ? [`faults: [${options.faults.map((kind) => `'${kind}'`).join(', ')}]`]
        : []),
    ]
    return `simulate({ ${narrowed.join(', ')} })`
  }
  const parts = [`npm run simulate -- --seed ${report.seed}`]
  if (options.day) parts.push('--day')
  if (options.only) parts.push(`--only ${options.only.join(',')}`)
  if (options.turns !== 4) parts.push(`--turns ${options.turns}`)
  if (options.faults.length !== FAULT_KINDS.length) {
    parts.push(`--faults ${options.faults.length === 0 ? 'none' : options.faults.join(',')}`)
  }
  return parts.join(' ')
}

/**
 * Reads `--faults a,b` (or `none`, or `all`).
 * @internal Exported for `npm run simulate` (knip --production).
 */
export function parseFaults(text: string): FaultKind[] {
  if (text === 'none') return []
  if (text === 'all') return [...FAULT_KINDS]
  const kinds = text.split(',').filter(Boolean)
  for (const kind of kinds) {
    if (!(FAULT_KINDS as readonly string[]).includes(kind)) {
      throw new TypeError(`No fault kind "${kind}"; the kinds: ${FAULT_KINDS.join(', ')}`)
    }
  }
  return kinds as FaultKind[]
}
