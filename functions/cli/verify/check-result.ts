/** The checks, in the order they are reported: the account's first, then the agent's. */
export const CHECK_NAMES = [
  'concurrency',
  'alarms',
  'models',
  'answer',
  'streaming',
  'heartbeat',
  'timer',
  'closed',
  'router',
] as const
export type CheckName = (typeof CHECK_NAMES)[number]

/** `WARN`: it works, but something a team should change (it fails nothing). */
type CheckStatus = 'PASS' | 'WARN' | 'FAIL' | 'SKIP'

/** What a check found: a verdict, one line that says why, and its timings. */
export interface CheckOutcome {
  status: CheckStatus
  detail: string
  /** Timings and counts behind the verdict (milliseconds unless named otherwise). */
  figures: Record<string, number>
}

export interface CheckResult extends CheckOutcome {
  check: CheckName
}

export const pass = (detail: string, figures: Record<string, number> = {}): CheckOutcome => ({
  status: 'PASS',
  detail,
  figures,
})
export const fail = (detail: string, figures: Record<string, number> = {}): CheckOutcome => ({
  status: 'FAIL',
  detail,
  figures,
})
export const warn = (detail: string, figures: Record<string, number> = {}): CheckOutcome => ({
  status: 'WARN',
  detail,
  figures,
})
export const skip = (detail: string, figures: Record<string, number> = {}): CheckOutcome => ({
  status: 'SKIP',
  detail,
  figures,
})

/** Milliseconds as people read them: `850 ms`, `2.4 s`. */
export function duration(ms: number): string {
  return Math.abs(ms) < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`
}
