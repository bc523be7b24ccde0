import { type BrowserRecord, browse } from './browser.ts'
import { checkSessions } from './check-sessions.ts'
import type { SimulationOptions, SimulationReport } from './simulation-types.ts'
import type { SimRun } from './simulation-wiring.ts'
import { START } from './simulation-world.ts'
import { emptyRecord, playSession, type UserRecord } from './user.ts'

// A wired run played out: every session's user (and, on the memory store,
// most sessions' browsers) on the world until it is quiet; then the checks,
// with faults calmed, and the report.

/** Starts each session's user, and its browser when the seed draws one; their records land in the maps. */
function playSessions(
  run: SimRun,
  options: SimulationOptions,
  records: Map<string, UserRecord>,
  browsers: Map<string, BrowserRecord>,
): void {
  const { world, pool, random, store } = run
  const away = new Map<string, Promise<void>>()
  const context = {
    world,
    pool,
    random: run.schedule.fork('users'),
    away,
    ...(run.say ? { say: run.say } : {}),
  }
  for (const plan of run.shape.plans) {
    const played = playSession(context, plan)
    // Each session's browser from its own stream (a replay of one session keeps it).
    const browsing = random.fork(`browser ${plan.sessionId}`)
    // Browsers on the memory store only: another store's tail may poll on real time.
    if (options.store === undefined && browsing.chance(0.6)) {
      void browse({ world, pool, random: browsing, store, away }, plan.sessionId, played).then(
        (record) => browsers.set(plan.sessionId, record),
        (error: unknown) =>
          browsers.set(plan.sessionId, {
            sessionId: plan.sessionId,
            applied: [],
            problems: [`the browser failed: ${error instanceof Error ? error.stack : error}`],
            drops: 0,
            reloads: 0,
          }),
      )
    }
    void played.then(
      (record) => records.set(plan.sessionId, record),
      (error: unknown) =>
        records.set(plan.sessionId, {
          ...emptyRecord(plan.sessionId),
          problems: [
            `the user's script failed: ${error instanceof Error ? error.stack : String(error)}`,
          ],
        }),
    )
  }
}

/** Plays the run until its world is quiet, then checks every session and reports. */
export async function runAndCheck(
  run: SimRun,
  options: SimulationOptions,
): Promise<SimulationReport> {
  const { world, faults, shape } = run
  const records = new Map<string, UserRecord>()
  const browsers = new Map<string, BrowserRecord>()
  playSessions(run, options, records, browsers)
  if (shape.deployAt !== undefined) {
    world.after(shape.deployAt, undefined, () => {
      world.log(
        'deploy',
        'version sim-v2 is live: new processes run it, the old ones finish what they run',
      )
      run.deployment.deployed = true
      run.pool.deploy()
    })
  }
  const end = await world.run()
  // What the run's processes did (the checks' own reads of the sessions come after).
  const snapshotsInRun = { ...run.snapshots }

  // The checks: no more faults or crashes; what the processes say is read through the world.
  faults.calm = true
  const { failures, events, compactions } = await checkSessions({
    sessions: shape.plans.map((plan) => plan.sessionId),
    store: run.store,
    world,
    pool: run.pool,
    records,
    returned: run.returned,
    spans: run.spans,
    ledger: run.ledger,
    end,
    browsers,
    wakeUps: run.wakeUpLedger,
    ...(run.policies ? { policies: run.policies, effects: run.effects } : {}),
  })
  return {
    seed: options.seed,
    options: reportedOptions(run, options),
    end,
    failures,
    trace: world.trace,
    digest: world.digest,
    figures: {
      steps: world.steps,
      simulatedMs: world.time - START,
      sessions: shape.plans.length,
      events,
      modelCalls: run.spans.spans.length,
      compactions,
      processes: run.pool.started,
      kills: run.tally.kills,
      latestWakeUpMs: run.wakeUpLedger.latestMs,
      freezes: run.tally.freezes,
      restarts: [...records.values()].reduce((sum, record) => sum + record.lives - 1, 0),
      messages: run.queues.sent,
      timersFired: run.timers.fired,
      snapshotsWritten: snapshotsInRun.written,
      snapshotsRead: snapshotsInRun.read,
      retired: run.pool.retired,
      faults: { ...faults.injected },
    },
  }
}

/** The options the run resolved to: what a replay needs besides the seed. */
function reportedOptions(run: SimRun, options: SimulationOptions): SimulationReport['options'] {
  const { sessions, turns, processes, model, allowed, users, day, serialTools } = run.shape
  return {
    sessions,
    turns,
    processes,
    model,
    faults: allowed,
    ...(options.only ? { only: options.only } : {}),
    ...(options.kinds ? { kinds: options.kinds } : {}),
    ...(users ? { agent: users } : {}),
    ...(day ? { day } : {}),
    ...(!users && serialTools ? { serialTools: true } : {}),
    ...(run.shape.deployAt === undefined ? {} : { deploys: true }),
  }
}
