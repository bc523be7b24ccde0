import { executeTool, isExecutableTool } from '@ai-sdk/provider-utils'
import type { Tool, UIMessage } from 'ai'
import { isContentRefusal } from '../../../log/content-refusal.ts'
import { hasA2Code } from '../../../log/error-brand.ts'
import type { StoredEvent } from '../../../log/event.ts'
import { runInHandlerContext } from '../../../runtime/handler-context.ts'
import { DONE, type RunOutcome } from '../../../runtime/wake-up.ts'
import { SERIAL_TOOL_KEY, toolClaimKey } from '../../controller/claim-keys.ts'
import { runnableTools } from '../../controller/due-work.ts'
import type { AIEventInput } from '../../events/ai-events.ts'
import { derivedId, toolCallKey, toolIdempotencyKey } from '../../ids.ts'
import type { AIState, ToolRecord } from '../../state/ai-state.ts'
import { modelMessagesOf, promptMessages, toolDefinitions } from '../prompt.ts'
import { agentSession } from '../session-api.ts'
import { warnLeftOut, wellFormedPrompt } from '../well-formed-prompt.ts'
import { runClaimedWork } from './claimed-work.ts'
import { durableSteps } from './durable-steps.ts'
import type { LaneContext } from './lane-context.ts'
import { storedEventAt } from './stored-event.ts'
import { isHeld, takeClaim } from './take-claim.ts'
import { acknowledgeCutShort } from './tool-settling.ts'

const INTERRUPTED_REPORT =
  'The tool call was interrupted (a crash, a timeout, Stop or Pause now) and may have partly run. It was not run again.'

/**
 * The tools lane. A wake-up without a key scans the session and wakes one
 * keyed run per runnable call (or one serial run with `toolLane: 'tools'`),
 * so calls start as soon as they are authorized and run concurrently.
 */
export async function runToolsLane(
  lane: LaneContext,
  sessionId: string,
  key: string | undefined,
): Promise<RunOutcome> {
  const { state } = await lane.state(sessionId)
  const runnable = runnableTools(state.ai)
  if (key === undefined) {
    if (runnable.length === 0) return DONE
    await lane.wake(
      lane.config.serialTools
        ? [{ sessionId, lane: 'tools', key: SERIAL_TOOL_KEY }]
        : runnable.map((tool) => ({ sessionId, lane: 'tools', key: toolCallKey(tool) })),
    )
    return DONE
  }
  const targets =
    key === SERIAL_TOOL_KEY ? runnable : runnable.filter((tool) => toolCallKey(tool) === key)
  for (const tool of targets) {
    // The serial lane runs its calls in order: one held holds the rest.
    const outcome = await runTool(lane, sessionId, state.ai, tool)
    if (outcome.kind === 'held') return outcome
  }
  return DONE
}

async function runTool(
  lane: LaneContext,
  sessionId: string,
  state: AIState,
  record: ToolRecord,
): Promise<RunOutcome> {
  const claimKey = toolClaimKey(record)
  // Held by another attempt until its claim expires: the run looks again then.
  const claim = await takeClaim(lane.store, sessionId, claimKey, lane.config.claimTtlMs)
  if (isHeld(claim)) return claim
  const fence = { claim: claimKey, attempt: claim.attempt }
  const result = (
    id: string,
    payload: Omit<
      Extract<AIEventInput<UIMessage>, { type: 'ai.tool.result' }>['payload'],
      'toolCallId' | 'generationId' | 'messageId'
    >,
  ): AIEventInput<UIMessage> => ({
    id,
    type: 'ai.tool.result',
    payload: {
      toolCallId: record.toolCallId,
      generationId: record.generationId,
      messageId: record.messageId,
      ...payload,
    },
  })
  const interrupted = claim.previous === 'expired' || claim.previous === 'revoked'
  if (interrupted && lane.config.toolRecovery(record.toolName) === 'report') {
    await lane.appendAsA2(
      sessionId,
      [
        result(derivedId('tool-result', record.generationId, record.toolCallId, claim.attempt), {
          outcome: 'error',
          errorText: INTERRUPTED_REPORT,
        }),
      ],
      { fence },
    )
    return DONE
  }

  const tools = lane.config.tools
  const definition: Tool | undefined = Object.hasOwn(tools, record.toolName)
    ? tools[record.toolName]
    : undefined
  const input = toolInput(state, record)
  if (!definition || !isExecutableTool(definition)) {
    await lane.appendAsA2(
      sessionId,
      [
        result(derivedId('tool-result', record.generationId, record.toolCallId, claim.attempt), {
          outcome: 'error',
          errorText: definition
            ? `Tool "${record.toolName}" has no execute function`
            : `Unknown tool "${record.toolName}"`,
        }),
      ],
      { fence },
    )
    return DONE
  }

  // The tool's `ctx.event` is its `ai.tool.called` event, as stored; its
  // timers count from that event's time, so a retried call sets the same ones.
  const calledEvent = await calledEventOf(lane, sessionId, record)
  const session = agentSession(lane, sessionId, {
    from: () => calledEvent.timestamp,
    call: toolIdempotencyKey(sessionId, record),
  })
  let preliminary = 0
  // Stopped (Pause now, Stop) or superseded before its result was recorded.
  let cutShort = false
  const steps = durableSteps(lane, sessionId, {
    scope: claimKey,
    recorded: state.durableSteps[claimKey],
    fence,
  })
  // A 'report' call that started is never given back on a failure: the
  // failure may have come after its effect (a throttled result write), so its
  // claim runs out and the next attempt reports it interrupted, not runs it again.
  let started = false
  const report = lane.config.toolRecovery(record.toolName) === 'report'
  const work = async (signal: AbortSignal): Promise<void> => {
    const prompt = await wellFormedPrompt(
      promptMessages(state),
      warnLeftOut(lane.config.logger, sessionId),
    )
    const messages = await modelMessagesOf(prompt, toolDefinitions(tools))
    let final: unknown
    let errorText: string | undefined
    try {
      await runInHandlerContext(
        {
          event: calledEvent,
          attempt: claim.attempt,
          session,
          signal: signal,
          agentName: lane.config.name,
          idempotencyKey: toolIdempotencyKey(sessionId, record),
          step: steps.step,
        },
        async () => {
          started = true
          for await (const output of executeTool({
            tool: definition,
            input,
            options: {
              toolCallId: record.toolCallId,
              messages,
              abortSignal: signal,
              // Tools here take no AI SDK context (handlerContext() carries
              // ours); an untyped Tool infers its context type to be `never`.
              context: {} as never,
            },
          })) {
            if (output.type === 'final') {
              final = output.output
              break
            }
            preliminary++
            await lane.appendAsA2(
              sessionId,
              [
                result(
                  derivedId(
                    'tool-preliminary',
                    record.generationId,
                    record.toolCallId,
                    claim.attempt,
                    preliminary,
                  ),
                  {
                    outcome: 'output',
                    output: output.output,
                    preliminary: true,
                  },
                ),
              ],
              { fence },
            )
          }
        },
      )
    } catch (error) {
      if (hasA2Code(error, 'FENCED_OUT') || signal.aborted) {
        cutShort = true
        return
      }
      errorText = error instanceof Error ? error.message : String(error)
    }
    // A step that could not be recorded is A2's failure, not the tool's:
    // the claim goes back and the call runs again, skipping recorded steps.
    if (steps.failure() !== undefined) throw steps.failure()
    if (signal.aborted) {
      cutShort = true
      return
    }
    const id = derivedId('tool-result', record.generationId, record.toolCallId, claim.attempt)
    const outcome =
      errorText === undefined
        ? ({ outcome: 'output', output: final ?? null } as const)
        : ({ outcome: 'error', errorText } as const)
    try {
      await lane.appendAsA2(sessionId, [result(id, outcome)], { fence })
    } catch (error) {
      if (hasA2Code(error, 'FENCED_OUT')) cutShort = true
      // An output the log refuses (too large, not JSON) would be refused on
      // every run: the call fails with the reason instead of running again.
      if (!isContentRefusal(error)) throw error
      await lane.appendAsA2(
        sessionId,
        [
          result(id, {
            outcome: 'error',
            errorText: `A2 could not store the tool's output: ${error.message}. Store large content elsewhere (S3, your database) and return a reference`,
          }),
        ],
        { fence },
      )
    }
  }
  await runClaimedWork(lane, sessionId, claim, work, { giveBack: () => !(report && started) })
  // The tool has returned: a Pause now waiting for this call to settle can
  // now record it (see tool-settling.ts).
  // Best effort: if it cannot be written, the pause's settle timer records it.
  if (cutShort) {
    await acknowledgeCutShort(lane, sessionId, record).catch((error: unknown) =>
      lane.config.logger.warn(
        `a2: could not acknowledge the stop of tool call ${record.toolCallId} in session ${sessionId}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    )
  }
  return DONE
}

/**
 * The call's `ai.tool.called` event as stored. A call whose approval was
 * recorded before the call itself (A2 writes both in one append, so only a
 * hand-written log does this) has no stored position: it gets the event its
 * record describes.
 */
async function calledEventOf(
  lane: LaneContext,
  sessionId: string,
  record: ToolRecord,
): Promise<StoredEvent> {
  if (record.called) return storedEventAt(lane.log, sessionId, record.called)
  const { status: _status, ...payload } = record
  return {
    id: derivedId('tool-called', record.generationId, record.toolCallId),
    type: 'ai.tool.called',
    payload,
    sessionId,
    index: 0,
    timestamp: lane.config.now(),
  }
}

/**
 * A call's input lives in its message part, not in `state.tools`. A reused
 * provider ID can name parts of earlier steps too; the call that runs is the
 * latest one (an earlier step's calls are terminal before the next starts).
 */
function toolInput(state: AIState, record: ToolRecord): unknown {
  const message = state.messages.find((candidate) => candidate.id === record.messageId)
  const parts = message?.parts ?? []
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i] as { toolCallId?: string; input?: unknown }
    if (part.toolCallId === record.toolCallId) return part.input
  }
  return undefined
}
