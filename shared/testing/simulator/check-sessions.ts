import type { StoredEvent } from '../../log/event.ts'
import type { EventStore } from '../../log/event-store.ts'
import { foldEvents } from '../../log/reducer.ts'
import type { AIState } from '../../model/state/ai-state.ts'
import { sessionReducer } from '../../model/state/session-state.ts'
import { brokenInvariants, explain, type SessionFacts } from './invariants.ts'
import type { ModelSpans } from './sim-model.ts'
import type { ProcessPool } from './sim-process.ts'
import { emptyRecord, type UserRecord } from './user.ts'

/** A session that broke an invariant, and why. */
export interface SessionFailure {
  sessionId: string
  broken: string[]
  /** The session's diagnosis and the end of its timeline. */
  explanation: string[]
}

import type { BrowserRecord } from './browser.ts'
import type { EffectRuns } from './user-agent.ts'
import type { WakeUpLedger } from './wake-up-ledger.ts'
import type { ToolLedger } from './workload-agent.ts'
import type { World, WorldEnd } from './world.ts'

export interface CheckInputs {
  sessions: readonly string[]
  store: EventStore
  world: World
  pool: ProcessPool
  records: ReadonlyMap<string, UserRecord>
  returned: ReadonlyMap<string, readonly { id: string; index: number; life: string }[]>
  spans: ModelSpans
  ledger: ToolLedger
  end: WorldEnd
  /** The browsers that read sessions' streams, by session. */
  browsers?: ReadonlyMap<string, BrowserRecord>
  policies?: SessionFacts['policies']
  effects?: EffectRuns
  /** The wake-ups the routing owed, and which a fast path gave. */
  wakeUps?: WakeUpLedger
}

/**
 * Gathers each session's facts once the world is quiet (its log read from
 * the store itself, a fold from scratch, every live process's state asked
 * through the world, the stored snapshot) and checks its invariants.
 */
export async function checkSessions(
  inputs: CheckInputs,
): Promise<{ failures: SessionFailure[]; events: number; compactions: number }> {
  const { store, world, pool, end } = inputs
  const reducer = sessionReducer(undefined)
  const foldOf = (events: readonly StoredEvent[]) =>
    foldEvents(reducer, { state: reducer.initialState, index: 0 }, events).state
  // A run that ran out of budget (a livelock) still has its processes asked.
  if (end !== 'quiet') world.extend({ steps: 20_000, ms: 3_600_000 })
  const failures: SessionFailure[] = []
  let events = 0
  let compactions = 0
  for (const sessionId of inputs.sessions) {
    const log = await store.read(sessionId)
    events += log.length
    compactions += log.filter((event) => event.type === 'ai.compaction.completed').length
    const fresh = foldOf(log).ai
    const asked = Promise.all(
      pool.live().map(async (process) => ({
        owner: process.owner,
        state: (await process.agent.session(sessionId).state()).state as AIState,
      })),
    )
    // A quiet world runs to quiet again; a livelocked one only until the answers are in.
    await world.run(end === 'quiet' ? undefined : asked)
    const processStates = await asked
    const stored = await store.readSnapshot(sessionId, reducer.name)
    const snapshot = stored && { stored, fold: foldOf(log.slice(0, stored.index)) }
    const user = inputs.records.get(sessionId) ?? {
      ...emptyRecord(sessionId),
      problems: ['the user never finished (the run ended first)'],
    }
    const broken = brokenInvariants({
      sessionId,
      events: log,
      fresh,
      processStates,
      ...(snapshot ? { snapshot } : {}),
      // What the appends of the log's life returned (an earlier life's are erased).
      returned: (inputs.returned.get(sessionId) ?? []).filter(
        (event) => event.life === log[0]?.life,
      ),
      spans: inputs.spans.spans,
      tools: inputs.ledger,
      user,
      now: world.time,
      ...(inputs.policies ? { policies: inputs.policies } : {}),
      fold: foldOf,
      ...(inputs.browsers?.has(sessionId)
        ? { browser: inputs.browsers.get(sessionId) as BrowserRecord }
        : {}),
      ...(inputs.effects ? { effects: inputs.effects.broken(sessionId) } : {}),
      ...(inputs.wakeUps ? { wakeUps: inputs.wakeUps.broken(sessionId) } : {}),
    })
    if (end !== 'quiet') {
      broken.unshift(
        `the world did not quiesce (${end === 'steps' ? 'a livelock: too many steps' : 'too much simulated time'})`,
      )
    }
    if (broken.length > 0) {
      failures.push({ sessionId, broken, explanation: explain(log, fresh, world.time) })
    }
  }
  return { failures, events, compactions }
}
