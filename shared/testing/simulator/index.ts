// The simulator: the whole runtime in a seeded world (see docs/testing.md).
export { describeFailure } from './describe.ts'
export { FAULT_KINDS, type FaultKind } from './faults.ts'
export { replayCommand, shrink } from './shrink.ts'
export type { SimModelCall } from './sim-model.ts'
export {
  type SessionFailure,
  type SimulatedStore,
  type SimulationOptions,
  type SimulationReport,
  simulate,
} from './simulation.ts'
export type { SimulatedAgent, SimulatedAgentOptions } from './user-agent.ts'
export { TURN_KINDS, type TurnKind, USER_AGENT_TURN_KINDS } from './workload.ts'
export type { TraceLine } from './world.ts'
