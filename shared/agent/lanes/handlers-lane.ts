import { handlerIdempotencyKey } from '../../model/ids/ids.ts'
import { runInHandlerContext } from '../../runtime/handler-context.ts'
import { DONE, type RunOutcome } from '../../runtime/wake-up.ts'
import { runClaimedWork } from './claimed-work.ts'
import { durableSteps } from './durable-steps.ts'
import { type Fence, type HandlersPorts, isHeld } from './lane-ports.ts'

const HANDLERS_CURSOR = 'handlers'
const PAGE = 100

/**
 * The handlers lane runs your `handlers` for application events, each event
 * at least once and in log order. It reads from its cursor, runs the handler
 * of each event under a claim (whose attempt number the handler sees), and
 * moves the cursor past the event only once the handler succeeded. A handler
 * that throws stops the lane; the wake-up is retried with backoff and, after
 * the retry policy's attempts, dead-lettered.
 */
export async function runHandlersLane(lane: HandlersPorts, sessionId: string): Promise<RunOutcome> {
  const handlers = lane.config.handlers
  // The cursor, the claims and the handlers' writes are of one life of the session.
  const { life } = await lane.state(sessionId)
  if (life === undefined) return DONE
  const move = (from: number, to: number, fence?: Fence) =>
    lane.cursors.move(sessionId, HANDLERS_CURSOR, life, { from, to }, fence)
  for (;;) {
    let from = await lane.cursors.read(sessionId, HANDLERS_CURSOR, life)
    const events = (await lane.read(sessionId, { after: from, limit: PAGE })).filter(
      (event) => event.life === life,
    )
    const last = events.at(-1)
    if (!last) return DONE
    const event = events.find((candidate) => Object.hasOwn(handlers, candidate.type))
    const handler = event ? handlers[event.type] : undefined
    if (!event || !handler) {
      await move(from, last.index)
      continue
    }
    if (event.index - 1 > from) {
      // Commit the events nobody handles first, so a failure below does not re-read them.
      await move(from, event.index - 1)
      from = event.index - 1
    }
    const claimKey = `handler:${event.id}`
    // A live worker runs it: the run looks again when its claim expires.
    const claim = await lane.claims.take(sessionId, claimKey, life)
    if (isHeld(claim)) return claim
    // Its timers count from the event, so a retried handler sets the same ones.
    const session = lane.session(sessionId, { from: () => event.timestamp, life })
    const fence = { claim: claim.key, attempt: claim.attempt }
    const { state } = await lane.state(sessionId)
    await runClaimedWork(lane, sessionId, claim, async (signal) => {
      const context = {
        event,
        attempt: claim.attempt,
        session,
        signal,
        agentName: lane.config.name,
        idempotencyKey: handlerIdempotencyKey(sessionId, event.id, life),
        step: durableSteps(lane, sessionId, {
          scope: claimKey,
          recorded: state.ai.durableSteps[claimKey],
          fence,
          life,
        }).step,
      }
      await runInHandlerContext(context, () => handler(context))
    })
    await move(from, event.index, fence)
  }
}
