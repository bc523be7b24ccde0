import type { ToolSet, UIMessage } from 'ai'
import { agent } from '../../agent/wiring/agent.ts'
import type { AgentOptions } from '../../agent/wiring/agent-options.ts'
import type { ContractEventInput, ContractEvents } from '../../log/contract.ts'
import { type A2Code, hasA2Code } from '../../log/error-brand.ts'
import type { StoredEvent } from '../../log/event.ts'
import { MAX_EVENTS_PER_APPEND } from '../../log/limits.ts'
import { messageOf } from '../../log/message-of.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import type { ControlCommandInput } from '../../model/inputs/command.ts'
import type { Lane } from '../../runtime/lane-table.ts'
import type { Scheduler, Timer } from '../../runtime/scheduler.ts'
import type { Dispatcher, RunOutcome, WakeUp } from '../../runtime/wake-up.ts'
import { memoryEventStore } from '../../stores/memory/memory-event-store.ts'
import { scriptedModel } from '../scripted-model.ts'
import {
  appendsReport,
  type ExpectedAppend,
  type NoContractEvents,
  projected,
} from './expected-appends.ts'
import { FakeSession } from './fake-session.ts'
import { LaneSpecFailure } from './lane-spec-failure.ts'

// Given these events, when this wake-up, then these appends
// (`given(events).when(wakeUp).thenAppends(expected)`): a lane's
// behaviour as a table of cases, in the spirit of Emmett's
// DeciderSpecification. Each case runs the lane's real run (the runtime's
// `run`, which the lane table routes) on a real agent over a fresh memory
// store seeded with the given events; the wake-ups and timers the run asks
// for are recorded, not run, so the case sees one lane's run and nothing
// after it. Nothing here loads a test runner: a case that does not hold
// rejects with a `LaneSpecFailure`.

/** An event a spec's log starts with: an `ai.*` event, a command, or a contract event. */
export type GivenEvent<
  Events extends ContractEvents = NoContractEvents,
  M extends UIMessage = UIMessage,
> = AIEventInput<M> | ControlCommandInput<M> | ContractEventInput<Events>

/** The wake-up a case runs: a lane of the lane table, and the key that narrows its work. */
export interface SpecWakeUp {
  lane: Lane
  /** Unset or `undefined`: the lane's run for the whole session. */
  key?: string | undefined
}

/** What one run of a lane did. */
export interface LaneRun {
  /** The run's outcome: done, or held by a live claim elsewhere. */
  outcome: RunOutcome
  /** The events the run appended, in order, as stored. */
  appended: StoredEvent[]
  /** The wake-ups its appends (and the lane itself) asked for: recorded, not run. */
  wakeUps: WakeUp[]
  /** The timers it set: recorded, not fired. */
  timers: Timer[]
}

export interface LaneSpecOptions<
  Tools extends ToolSet = ToolSet,
  Events extends ContractEvents = NoContractEvents,
  AppState = unknown,
  M extends UIMessage = UIMessage,
> {
  /**
   * The agent whose lane runs, as `agent()` takes it (its tools, handlers,
   * harness, contract). The kit brings the store, dispatcher, scheduler and
   * clock; `name` defaults to `lane-spec`, `model` to a scripted model on
   * `script`, `logger` to one that says nothing.
   */
  agent?: Partial<
    Omit<AgentOptions<Tools, Events, AppState, M>, 'store' | 'dispatcher' | 'scheduler' | 'now'>
  >
  /**
   * The model's answers when `agent` names no model: each case gets a
   * scripted model of its own on them (`scriptedModel()`), so every case's
   * first model call gets the first step. Default: none (a model call fails).
   */
  script?: Parameters<typeof scriptedModel>[0]
  /** The session the cases run on (default `s1`). */
  sessionId?: string
  /** The clock of the store and the agent (default: fixed at 2026-01-01T00:00:00Z). */
  now?: () => number
}

/** What a case may expect of the run. */
export interface LaneSpecThen<Events extends ContractEvents, M extends UIMessage> {
  /**
   * The run appends exactly these events, in order: each of the expected
   * type, with the `id` and `payload` fields it names (the rest ignored).
   * Resolves with the run, for anything else to check. (Not `then`: an
   * object with a `then` is a promise to `await`, which would run it.)
   */
  thenAppends(expected: readonly ExpectedAppend<Events, M>[]): Promise<LaneRun>
  /** The run appends nothing (it may still wake lanes or set timers). */
  thenNothing(): Promise<LaneRun>
  /**
   * The run fails: with an error of this package with `code`, or with a
   * message matching the pattern, or (neither given) with any error.
   */
  thenThrows(expected?: A2Code | RegExp): Promise<void>
  /** Runs the case and resolves with what it did, checking nothing. */
  run(): Promise<LaneRun>
}

export interface LaneSpecWhen<Events extends ContractEvents, M extends UIMessage> {
  when(wakeUp: SpecWakeUp): LaneSpecThen<Events, M>
}

export interface LaneSpec<Events extends ContractEvents, M extends UIMessage> {
  /** The session's log before the run: events in order, or a `FakeSession`'s history. */
  given(history: readonly GivenEvent<Events, M>[] | FakeSession): LaneSpecWhen<Events, M>
}

const QUIET = { info() {}, warn() {}, error() {} }
const DEFAULT_NOW = Date.UTC(2026, 0, 1)

/**
 * A spec of a lane: `given(events).when(wakeUp).thenAppends(appends)`, each case
 * on an agent of its own.
 *
 * @example
 * await laneSpec()
 *   .given(inputs.message(userMessage))
 *   .when({ lane: 'admission' })
 *   .thenAppends([
 *     { type: 'ai.message.created' },
 *     { type: 'ai.control.committed' },
 *     { type: 'ai.control.decided', payload: { outcome: 'applied' } },
 *     { type: 'ai.generation.requested', payload: { step: 1 } },
 *   ])
 */
export function laneSpec<
  Tools extends ToolSet = ToolSet,
  Events extends ContractEvents = NoContractEvents,
  AppState = unknown,
  M extends UIMessage = UIMessage,
>(options: LaneSpecOptions<Tools, Events, AppState, M> = {}): LaneSpec<Events, M> {
  const sessionId = options.sessionId ?? 's1'
  const now = options.now ?? (() => DEFAULT_NOW)

  async function run(
    history: readonly GivenEvent<Events, M>[] | FakeSession,
    wakeUp: SpecWakeUp,
  ): Promise<LaneRun> {
    const wakeUps: WakeUp[] = []
    const timers: Timer[] = []
    const dispatcher: Dispatcher = {
      async wake(more) {
        wakeUps.push(...more)
      },
    }
    const scheduler: Scheduler = {
      async schedule(timer) {
        timers.push(structuredClone(timer))
      },
      async cancel() {
        return 0
      },
    }
    const chosen = options.agent ?? {}
    const under = agent<Tools, Events, AppState, M>({
      ...chosen,
      // A contract names the agent too; the kit's name only when neither does.
      ...(chosen.name === undefined && chosen.contract === undefined ? { name: 'lane-spec' } : {}),
      model: chosen.model ?? scriptedModel(options.script ?? []).model,
      logger: chosen.logger ?? QUIET,
      store: memoryEventStore({ now }),
      dispatcher,
      scheduler,
      now,
    })
    try {
      const log = under.runtime.log.session(sessionId)
      const given = history instanceof FakeSession ? history.log : history
      // The given events as the log keeps them (checked against their
      // schemas), written as A2 so reserved IDs are allowed, and waking
      // nothing; a long history in as many appends as the log's limit takes.
      let after = 0
      for (let from = 0; from < given.length; from += MAX_EVENTS_PER_APPEND) {
        const batch = given.slice(from, from + MAX_EVENTS_PER_APPEND)
        const seeded = await log.append(
          batch.map(({ id, type, payload }) => ({
            ...(id === undefined ? {} : { id }),
            type,
            payload,
          })),
          { author: 'a2' },
        )
        after = seeded.at(-1)?.index ?? after
      }
      const { lane, key } = wakeUp
      const outcome = await under.runtime.run({
        sessionId,
        lane,
        ...(key === undefined ? {} : { key }),
      })
      return { outcome, appended: await log.read({ after }), wakeUps, timers }
    } finally {
      under.runtime.close()
    }
  }

  return {
    given: (history) => ({
      when: (wakeUp) => ({
        run: () => run(history, wakeUp),
        async thenAppends(expected) {
          const done = await run(history, wakeUp)
          const report = appendsReport(expected, done.appended)
          if (report !== undefined)
            throw new LaneSpecFailure(`The ${wakeUp.lane} lane's run: ${report}`, {
              expected,
              actual: projected(expected, done.appended),
            })
          return done
        },
        async thenNothing() {
          const done = await run(history, wakeUp)
          const report = appendsReport([], done.appended)
          if (report !== undefined)
            throw new LaneSpecFailure(`The ${wakeUp.lane} lane's run: ${report}`, {
              expected: [],
              actual: projected([], done.appended),
            })
          return done
        },
        async thenThrows(expected) {
          let done: LaneRun
          try {
            done = await run(history, wakeUp)
          } catch (error) {
            if (failsAsExpected(error, expected)) return
            throw new LaneSpecFailure(
              `The ${wakeUp.lane} lane's run failed with ${describeError(error)}, expected ${describeExpectedError(expected)}`,
            )
          }
          throw new LaneSpecFailure(
            `The ${wakeUp.lane} lane's run did not fail (expected ${describeExpectedError(expected)}); it appended ${done.appended.length === 0 ? 'nothing' : done.appended.map((event) => event.type).join(', ')}`,
          )
        },
      }),
    }),
  }
}

function failsAsExpected(error: unknown, expected: A2Code | RegExp | undefined): boolean {
  if (expected === undefined) return true
  if (expected instanceof RegExp) return expected.test(messageOf(error))
  return hasA2Code(error, expected)
}

function describeError(error: unknown): string {
  const code =
    typeof error === 'object' && error !== null && 'code' in error ? ` (${String(error.code)})` : ''
  return `"${messageOf(error)}"${code}`
}

function describeExpectedError(expected: A2Code | RegExp | undefined): string {
  if (expected === undefined) return 'a failure'
  return expected instanceof RegExp ? `a message matching ${expected}` : `code ${expected}`
}
