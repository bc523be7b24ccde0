import type { FaultKind } from './faults.ts'
import { FAULT_KINDS } from './faults.ts'
import type { Random } from './random.ts'
import type { SimulationOptions } from './simulation-types.ts'
import type { SimulatedAgent } from './user-agent.ts'
import { planSessions, type SessionPlan, type TurnKind, USER_AGENT_TURN_KINDS } from './workload.ts'

/** What a run is made of: the options given, the rest drawn from the seed. */
export interface RunShape {
  day: boolean
  sessions: number
  turns: number
  processes: { min: number; max: number; slots: number }
  model: { kind: 'gateway'; contextWindow: number } | { kind: 'object' }
  /** The fault kinds that may be enabled. */
  allowed: readonly FaultKind[]
  // biome-ignore lint/suspicious/noExplicitAny: any agent's tools
  users: SimulatedAgent<any> | undefined
  kinds: readonly TurnKind[] | undefined
  /** The sessions the run plays (those `only` keeps). */
  plans: SessionPlan[]
  /** The workload's agent runs its local tools one at a time. */
  serialTools: boolean
  /** When version 2 of the workload agent is deployed (simulated ms; `deploys` only). */
  deployAt?: number
}

/** Resolves a run's options against the seed's `shape` and `workload` streams. */
export function resolveShape(options: SimulationOptions, random: Random): RunShape {
  const shape = random.fork('shape')
  // Drawn whatever the options say, so an option given leaves the others as the seed drew them.
  const drawn = {
    sessions: shape.between(1, 4),
    processes: { min: shape.between(1, 2), max: shape.between(2, 4), slots: shape.pick([1, 2, 4]) },
    model: shape.chance(0.7)
      ? { kind: 'gateway' as const, contextWindow: shape.pick([1_500, 4_000, 400_000]) }
      : { kind: 'object' as const },
    // Drawn after the rest, so the seed's other draws stay as they were.
    serialTools: shape.chance(0.25),
  }
  const day = options.day === true
  const sessions = options.sessions ?? (day ? 8 + (drawn.sessions % 5) : drawn.sessions)
  const turns = options.turns ?? (day ? 6 : 4)
  const processes = options.processes ?? {
    ...drawn.processes,
    max: Math.max(drawn.processes.min, drawn.processes.max),
  }
  const users = options.agent
  if (options.deploys && users) {
    throw new TypeError('simulate({ deploys }) deploys the workload agent: it takes no `agent`')
  }
  const kinds = options.kinds ?? (users ? USER_AGENT_TURN_KINDS : undefined)
  const planned = planSessions(random.fork('workload'), {
    sessions,
    turns,
    ...(kinds ? { kinds } : {}),
    ...(day ? { spreadMs: 3 * 3600_000 } : {}),
  })
  return {
    day,
    sessions,
    turns,
    processes,
    model: options.model ?? drawn.model,
    allowed: options.faults ?? FAULT_KINDS,
    users,
    kinds,
    plans: options.only ? planned.filter((_, index) => options.only?.includes(index)) : planned,
    serialTools: drawn.serialTools,
    // From a stream of its own: the seed's other draws stay as they were.
    // Within the first turns' approvals and tool runs, where a deploy meets work in flight.
    ...(options.deploys ? { deployAt: random.fork('deploy').between(500, 12_000) } : {}),
  }
}
