import type { StateSnapshot } from '../../log/reducer.ts'
import { generationCompleted } from '../../model/controller/generation-attempt.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import { atIndexWriter } from '../lanes/at-index-writer.ts'
import type { Fence, GenerationPorts } from '../lanes/lane-ports.ts'
import { whileCurrent } from './step-writes.ts'
import type { ReplacedStep } from './takeover-rule.ts'

/**
 * Carries out the takeover rule's `finish-replaced-step`: ends the step of a
 * vanished attempt that recorded tool calls, under this attempt's claim,
 * finish reason `tool-calls`, with the controller's decision after it. The
 * vanished attempt, should it still be alive, is fenced out by the claim
 * and, for its progress, by the step's end.
 */
export async function finishReplacedStep(
  lane: GenerationPorts,
  sessionId: string,
  snapshot: StateSnapshot<SessionState>,
  serve: ReplacedStep,
  fence: Fence,
): Promise<void> {
  lane.config.logger.warn(
    `a2: generation ${serve.replaces} of session ${sessionId} stopped after recording tool calls; attempt ${fence.attempt} ends its step there rather than running it again`,
  )
  const writer = atIndexWriter(lane, sessionId, {
    from: { index: snapshot.index, life: snapshot.life },
    goesOn: whileCurrent(sessionId, serve.replaces, fence),
  })
  // The at-index writer's `appendLast`: the work's last event, with the
  // controller's decision after it.
  await writer.appendLast(
    generationCompleted(serve.replaces, serve.requestId, {
      outcome: 'success',
      finishReason: 'tool-calls',
    }),
    { fence, controller: lane.config.controller },
  )
}
