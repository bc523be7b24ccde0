import { type CheckOutcome, fail, pass, skip, warn } from './check-result.ts'

/**
 * Router invocations per turn above which the event filter is suspect: a
 * turn's records gather into one or two invocations (the mapping's 3 s
 * batching window), and a verify run adds a few records of its own (the
 * timer's event, the sessions it opens). Streamed progress, which the filter
 * drops, would be several invocations a second of streaming.
 */
const MAX_INVOCATIONS_PER_TURN = 10

export interface RouterFigures {
  /** The router function's invocations over the window (its log's REPORT records). */
  invocations: number
  /** The turns answered in the window (the answer check's). */
  turns: number
  /** How long the window was. */
  windowMs: number
}

/**
 * What the router's invocations over verify's window say of its event
 * filter (on a stack in use, other sessions' records count too: run it
 * when the agent is quiet for a figure of verify's turn alone). None with a turn answered means the filter let nothing through:
 * the lanes still run on the functions' own sends, but the backstop behind
 * them (a crash between an append and its send, an import) is dead. Many
 * per turn means the filter lets through what it should drop.
 */
export function judgeRouter(figures: RouterFigures | { error: string }): CheckOutcome {
  if ('error' in figures) return fail(`could not count the router's invocations: ${figures.error}`)
  const { invocations, turns, windowMs } = figures
  const window = `over the ${Math.round(windowMs / 1000)} s of this run`
  if (turns === 0) {
    return skip(
      `no turn was answered ${window} to count the router's invocations by (${invocations} invocations); run it with the answer check`,
      { invocations, turns },
    )
  }
  const perTurn = invocations / turns
  const shown = Number.isInteger(perTurn) ? String(perTurn) : perTurn.toFixed(1)
  const result = { invocations, turns, perTurnTimes10: Math.round(perTurn * 10) }
  const each = `${shown} router ${perTurn === 1 ? 'invocation' : 'invocations'} per turn`
  if (invocations === 0) {
    return fail(
      `the router was not invoked ${window}, though ${turns === 1 ? 'a turn was' : `${turns} turns were`} answered: its event source's filter lets no record through, so nothing backs up the functions' own wake-ups (look at the router's event source mapping: FilterCriteria, State)`,
      result,
    )
  }
  if (perTurn > MAX_INVOCATIONS_PER_TURN) {
    return warn(
      `${each} (${invocations} for ${turns} ${turns === 1 ? 'turn' : 'turns'} ${window}): more than ${MAX_INVOCATIONS_PER_TURN}, so its filter may let streamed progress through, each an invocation billed`,
      result,
    )
  }
  return pass(
    `${each} (${invocations} for ${turns} ${turns === 1 ? 'turn' : 'turns'} ${window})`,
    result,
  )
}
