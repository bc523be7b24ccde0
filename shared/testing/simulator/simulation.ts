import { memoryEventStore } from '../../stores/memory/memory-event-store.ts'
import { installDefaultProvider } from '../default-provider.ts'
import { observeEffects } from '../effect-observer.ts'
import { Faults, planFaults } from './faults.ts'
import { seededRandom } from './random.ts'
import { gatewayProvider } from './sim-gateway.ts'
import { ModelSpans } from './sim-model.ts'
import { storeCaller } from './sim-store.ts'
import { runAndCheck } from './simulation-play.ts'
import { resolveShape } from './simulation-shape.ts'
import type { SimulationOptions, SimulationReport } from './simulation-types.ts'
import { wireRun } from './simulation-wiring.ts'
import { simulatedWorld } from './simulation-world.ts'
import { WakeUpLedger } from './wake-up-ledger.ts'

// A run's parts live beside this file: its shape (simulation-shape.ts), its
// world (simulation-world.ts), its wiring (simulation-wiring.ts) and its
// play and checks (simulation-play.ts); the types in simulation-types.ts.

export type { SessionFailure } from './check-sessions.ts'
export type { SimulatedStore, SimulationOptions, SimulationReport } from './simulation-types.ts'

/**
 * Runs one seed: the real runtime (`agent()` and its lanes, the
 * controller, the store's logic) in several processes over one store, on
 * simulated time, with users playing the seed's sessions and the seed's
 * faults injected, until the world is quiet; then checks every session's
 * invariants. The same options make the same run.
 */
export async function simulate(options: SimulationOptions): Promise<SimulationReport> {
  const random = seededRandom(options.seed)
  const shape = resolveShape(options, random)
  const faults = new Faults(
    planFaults(random.fork('fault plan'), shape.allowed),
    random.fork('faults'),
  )
  const tally = { kills: 0, freezes: 0 }
  const spans = new ModelSpans()
  const wakeUpLedger = new WakeUpLedger()
  const maxSteps = options.maxSteps ?? (shape.day ? 2_000_000 : 200_000)
  const world = simulatedWorld(maxSteps, faults, tally, spans, wakeUpLedger)
  // The store reads the clock of the process it serves (its adapter's), else the world's.
  const clocks = new Map<number, () => number>()
  const storeNow = () => {
    const owner = storeCaller.getStore()
    return (owner === undefined ? undefined : clocks.get(owner)?.()) ?? world.time
  }
  // Lives counted from 1, not the default's random prefix: a replay is exact.
  let lives = 0
  const given = await (
    options.store ?? ((now) => memoryEventStore({ now, lifeIds: () => `L${++lives}` }))
  )(storeNow, faults)
  const store = 'instance' in given ? given.store : given
  const run = wireRun({
    shape,
    random,
    faults,
    tally,
    world,
    spans,
    wakeUpLedger,
    clocks,
    store,
    instanceOf: 'instance' in given ? () => given.instance() : () => store,
    faultsAtPort: options.store === undefined,
  })
  const undoProvider = installDefaultProvider(gatewayProvider(run.models))
  const undoEffects = observeEffects((ledger, what, performed) =>
    run.effects.record(ledger, what, performed),
  )
  try {
    for (let n = 0; n < shape.processes.min; n++) run.pool.start()
    return await runAndCheck(run, options)
  } finally {
    undoEffects()
    undoProvider()
    for (const process of run.pool.live()) process.agent.runtime.close()
    run.router.runtime.close()
  }
}
