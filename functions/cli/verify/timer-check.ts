import type { Scheduler } from '../../../shared/runtime/scheduler.ts'
import { sleep } from '../../../shared/timing/sleep.ts'
import type { CheckOutcome } from './check-result.ts'
import { judgeTimer, SCHEDULER_PRECISION_MS } from './judge-timer.ts'
import { openSse } from './sse-connection.ts'
import { errorText, sessionUrl, type VerifyTarget } from './verify-target.ts'

/** The type of the event verify's timer appends to its session. */
const VERIFY_TIMER_EVENT = 'a2-verify.timer.fired'

/** How long past its time a timer is waited for: Scheduler's minute, and one more for the queue and function. */
const TIMER_GRACE_MS = SCHEDULER_PRECISION_MS + 60_000

export interface TimerCheckOptions {
  sessionId: string
  /** The agent's timers with the Scheduler path forced (`eventBridgeScheduler({ forceScheduler: true })`). */
  scheduler: Scheduler
  /** How far ahead the timer is due. */
  delayMs: number
  /** How long past its time it is waited for (default `TIMER_GRACE_MS`). */
  graceMs?: number
  /** Wall-clock milliseconds since the epoch: timers are due on AWS's clock. */
  clock?: () => number
}

/**
 * The timer check: sets a timer carrying one event for the session, due in
 * `delayMs`, through EventBridge Scheduler (the agent's group, role, timer
 * queue and DLQ), then watches the session's stream (resuming after the
 * last event seen if the stream ends) until the event arrives.
 */
export async function runTimerCheck(
  target: VerifyTarget,
  options: TimerCheckOptions,
): Promise<CheckOutcome> {
  const clock = options.clock ?? Date.now
  const { sessionId } = options
  const nonce = Math.random().toString(36).slice(2, 10)
  const eventId = `${sessionId}-timer-${nonce}`
  const at = clock() + options.delayMs
  try {
    await options.scheduler.schedule({
      sessionId,
      name: `a2-verify-${nonce}`,
      at,
      events: [{ id: eventId, type: VERIFY_TIMER_EVENT, payload: { at } }],
    })
  } catch (error) {
    return judgeTimer({ at, waitedMs: 0, error: errorText(error) })
  }
  const deadline = at + (options.graceMs ?? TIMER_GRACE_MS)
  let after: number | undefined
  while (clock() < deadline) {
    let connection: Awaited<ReturnType<typeof openSse>>
    try {
      connection = await openSse(sessionUrl(target.url, sessionId, after), target)
    } catch {
      // A refused reconnect (a throttle, a cold start timing out): try again shortly.
      await sleep(1_000)
      continue
    }
    try {
      const found = await connection.next(
        (frame) => frame.kind === 'event' && frame.event.id === eventId,
        deadline - clock(),
      )
      if (typeof found !== 'string' && found.kind === 'event') {
        return judgeTimer({ at, fired: found.event, waitedMs: clock() - at })
      }
      for (const frame of connection.frames) if (frame.kind === 'event') after = frame.event.index
      if (found === 'timeout') break
    } finally {
      connection.close()
    }
    await sleep(1_000)
  }
  return judgeTimer({ at, waitedMs: clock() - at })
}
