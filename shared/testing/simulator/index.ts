// The simulator: the whole runtime in a seeded world (see docs/testing.md).
export { describeFailure, traceLine } from './describe.ts'
export { FAULT_KINDS, type FaultKind, type FaultPlan } from './faults.ts'
export type { SessionFacts } from './invariants.ts'
export { optionsOf, parseFaults, replayCommand, type ShrinkOptions, shrink } from './shrink.ts'
export type { ModelSpan, SimModelCall, SimScript } from './sim-model.ts'
export {
  type SessionFailure,
  type SimulationOptions,
  type SimulationReport,
  simulate,
} from './simulation.ts'
export { TURN_KINDS, type TurnKind } from './workload.ts'
export type { TraceLine, WorldEnd } from './world.ts'
