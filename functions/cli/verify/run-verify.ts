import type { VerifyConfig } from '../../../shared/aws/verify-output.ts'
import type { Scheduler } from '../../../shared/runtime/scheduler.ts'
import { type AnswerRun, runAnswerCheck } from './answer-check.ts'
import {
  CHECK_NAMES,
  type CheckName,
  type CheckOutcome,
  type CheckResult,
  skip,
} from './check-result.ts'
import { runClosedCheck } from './closed-check.ts'
import { runHeartbeatCheck } from './heartbeat-check.ts'
import { judgeAlarms } from './judge-alarms.ts'
import { judgeConcurrency } from './judge-concurrency.ts'
import { judgeStreaming } from './judge-streaming.ts'
import type { LogSearch } from './log-search.ts'
import { type InvokeModel, runModelsCheck } from './models-check.ts'
import { runRouterCheck } from './router-check.ts'
import { runTimerCheck } from './timer-check.ts'
import { verifySession } from './verify-session.ts'
import type { VerifyTarget } from './verify-target.ts'

const DEFAULT_MESSAGE =
  'Hello from a2-aws verify, checking a new deployment. Please answer in three or four sentences, so that the answer streams long enough for its frames to be timed.'

export interface VerifyOptions extends VerifyTarget {
  /** The checks to run (default all), reported in `CHECK_NAMES` order. */
  checks?: readonly CheckName[]
  /** The session the checks use (default `a2-verify-<random>`); the heartbeat and closed checks add a suffix. */
  sessionId?: string
  message?: string
  answerTimeoutMs?: number
  quietMs?: number
  timerDelayMs?: number
  /** How long past its time the timer is waited for. */
  timerGraceMs?: number
  /** The agent's timers, Scheduler path forced; without it the timer check is skipped. */
  scheduler?: Scheduler
  /** Searches the stream function's logs; without it the closed check is skipped. */
  searchStreamLogs?: LogSearch
  /** How long after closing a stream its invocation's REPORT is looked for. */
  closedWaitMs?: number
  /** The Bedrock models the agent is granted, by the stack (`bedrockModels`). */
  bedrockModels?: readonly string[]
  /** Makes the models check's one-token calls; without it the check is skipped. */
  invokeModel?: InvokeModel
  /** Lambda concurrency as the last deploy found it; without it the check is skipped. */
  concurrency?: VerifyConfig['concurrency'] | 'unknown'
  /** The stack's alarms as synthesized; without it the check is skipped. */
  alarms?: VerifyConfig['alarms'] | 'unknown'
  /** Searches the router function's logs; without it the router check is skipped. */
  searchRouterLogs?: LogSearch
  /** How long after the other checks the router's log is read (default 20 s). */
  routerSettleMs?: number
  /** Each result as soon as it and the ones before it are in. */
  onResult?: (result: CheckResult) => void
}

export interface VerifyReport {
  url: string
  sessionId: string
  results: CheckResult[]
  passed: number
  /** Checks that passed with something to change (`WARN`): they fail nothing. */
  warned: number
  failed: number
  skipped: number
  /** No check failed. */
  ok: boolean
}

const NEEDS_AWS =
  'needs the AWS APIs of a stack: give --stack (with --url alone, only HTTP is checked)'

/**
 * Runs the checks against a deployed agent and reports each. The timer is
 * set first (its wait is the longest); the answer runs before the heartbeat
 * and closed checks open their streams, which then run side by side.
 *
 * @example
 * const report = await runVerify({ url, headers: [], checks: ['answer', 'streaming'] })
 */
export async function runVerify(options: VerifyOptions): Promise<VerifyReport> {
  const checks = options.checks ?? CHECK_NAMES
  // The router check's window starts here (AWS's clock: epoch milliseconds).
  const startedAt = Date.now()
  const named = options.sessionId ?? `a2-verify-${Math.random().toString(36).slice(2, 10)}`
  const wanted = (name: CheckName) => checks.includes(name)
  // Sessions the API opened, with their tokens, where it opens sessions; a
  // session named with --session keeps the target's own --header.
  const session: OpenSession = (suffix) =>
    options.sessionId === undefined
      ? verifySession(options, `${named}${suffix}`)
      : Promise.resolve({ sessionId: `${named}${suffix}`, target: options })
  // The account checks need no session: open one only for the agent's.
  const main = checks.some((check) => SESSION_CHECKS.includes(check))
    ? await session('')
    : { sessionId: named, target: options }
  const outcomes: Outcomes = new Map()
  startAccountChecks(options, wanted, outcomes)
  startSessionChecks(options, { main, session, wanted }, outcomes)
  if (wanted('router')) {
    // Last, once every other check's writes are in: their turns are what it counts by.
    outcomes.set('router', routerOutcome(options, startedAt, outcomes))
  }
  const results: CheckResult[] = []
  for (const check of CHECK_NAMES) {
    if (!wanted(check)) continue
    const outcome = await (outcomes.get(check) as Promise<CheckOutcome>)
    // Whole milliseconds: the client's clock reads fractions no figure needs.
    const figures = Object.fromEntries(
      Object.entries(outcome.figures).map(([name, value]) => [name, Math.round(value)]),
    )
    const result = { check, ...outcome, figures }
    results.push(result)
    options.onResult?.(result)
  }
  return report(options.url, main.sessionId, results)
}

/** The checks' outcomes as they come, by check. */
type Outcomes = Map<CheckName, Promise<CheckOutcome>>

/** A session of the checks' own, named with `suffix`, and the target that reaches it. */
type OpenSession = (suffix: string) => Promise<{ sessionId: string; target: VerifyTarget }>

/** The checks that run on a session of the agent's. */
const SESSION_CHECKS: readonly CheckName[] = ['answer', 'streaming', 'heartbeat', 'timer', 'closed']

/** The account checks, which need no session: concurrency, alarms, models. */
function startAccountChecks(
  options: VerifyOptions,
  wanted: (name: CheckName) => boolean,
  outcomes: Outcomes,
): void {
  if (wanted('concurrency')) {
    outcomes.set(
      'concurrency',
      Promise.resolve(
        options.concurrency === undefined
          ? skip(NEEDS_AWS)
          : judgeConcurrency(options.concurrency === 'unknown' ? undefined : options.concurrency),
      ),
    )
  }
  if (wanted('alarms')) {
    outcomes.set(
      'alarms',
      Promise.resolve(
        options.alarms === undefined
          ? skip(NEEDS_AWS)
          : judgeAlarms(options.alarms === 'unknown' ? undefined : options.alarms),
      ),
    )
  }
  if (wanted('models')) {
    outcomes.set(
      'models',
      options.invokeModel
        ? runModelsCheck(options.bedrockModels ?? [], options.invokeModel)
        : Promise.resolve(skip(NEEDS_AWS)),
    )
  }
}

/**
 * The agent's checks: the timer set first (its wait is the longest), the
 * answer (and the streaming judged on its frames), then the heartbeat and
 * closed checks, each on a session of its own.
 */
function startSessionChecks(
  options: VerifyOptions,
  {
    main,
    session,
    wanted,
  }: {
    main: { sessionId: string; target: VerifyTarget }
    session: OpenSession
    wanted: (name: CheckName) => boolean
  },
  outcomes: Outcomes,
): void {
  const { sessionId } = main
  if (wanted('timer')) {
    outcomes.set(
      'timer',
      options.scheduler
        ? runTimerCheck(main.target, {
            sessionId,
            scheduler: options.scheduler,
            delayMs: options.timerDelayMs ?? 2 * 60_000,
            ...(options.timerGraceMs === undefined ? {} : { graceMs: options.timerGraceMs }),
          })
        : Promise.resolve(skip(NEEDS_AWS)),
    )
  }
  const answer: Promise<AnswerRun | undefined> =
    wanted('answer') || wanted('streaming')
      ? runAnswerCheck(main.target, {
          sessionId,
          message: options.message ?? DEFAULT_MESSAGE,
          timeoutMs: options.answerTimeoutMs ?? 120_000,
        })
      : Promise.resolve(undefined)
  outcomes.set(
    'answer',
    answer.then((run) => run?.outcome as CheckOutcome),
  )
  outcomes.set(
    'streaming',
    answer.then((run) => judgeStreaming(run?.frames ?? [])),
  )
  const afterAnswer = answer.then(() => undefined)
  if (wanted('heartbeat')) {
    outcomes.set(
      'heartbeat',
      afterAnswer.then(async () => {
        const quiet = await session('-quiet')
        return runHeartbeatCheck(quiet.target, {
          sessionId: quiet.sessionId,
          quietMs: options.quietMs ?? 75_000,
        })
      }),
    )
  }
  if (wanted('closed')) {
    const searchLogs = options.searchStreamLogs
    outcomes.set(
      'closed',
      searchLogs
        ? afterAnswer.then(async () => {
            const closed = await session('-closed')
            return runClosedCheck(closed.target, {
              sessionId: closed.sessionId,
              searchLogs,
              ...(options.closedWaitMs === undefined ? {} : { waitMs: options.closedWaitMs }),
            })
          })
        : Promise.resolve(skip(NEEDS_AWS)),
    )
  }
}

/** The router check, once every check started so far is done: it counts the turns they ran. */
function routerOutcome(
  options: VerifyOptions,
  startedAt: number,
  outcomes: Outcomes,
): Promise<CheckOutcome> {
  const searchLogs = options.searchRouterLogs
  if (!searchLogs) return Promise.resolve(skip(NEEDS_AWS))
  const others = [...outcomes.values()]
  return Promise.all(others).then(async () => {
    const answered = (await outcomes.get('answer'))?.status === 'PASS' ? 1 : 0
    return runRouterCheck({
      searchLogs,
      since: startedAt,
      turns: answered,
      ...(options.routerSettleMs === undefined ? {} : { settleMs: options.routerSettleMs }),
    })
  })
}

function report(url: string, sessionId: string, results: CheckResult[]): VerifyReport {
  const count = (status: CheckResult['status']) =>
    results.filter((result) => result.status === status).length
  return {
    url,
    sessionId,
    results,
    passed: count('PASS'),
    warned: count('WARN'),
    failed: count('FAIL'),
    skipped: count('SKIP'),
    ok: count('FAIL') === 0,
  }
}
