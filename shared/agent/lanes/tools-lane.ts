import {
  type ExecutableTool,
  executeTool,
  isExecutableTool,
  safeValidateTypes,
} from '@ai-sdk/provider-utils'
import { asSchema, type Tool, type UIMessage } from 'ai'
import { isContentRefusal } from '../../log/content-refusal.ts'
import { hasA2Code } from '../../log/error-brand.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { Claim } from '../../log/event-store.ts'
import { messageOf } from '../../log/message-of.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import { runnableTools } from '../../model/controller/due-work.ts'
import { cutShortAcknowledgement } from '../../model/controller/pause-settlement.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import { SERIAL_TOOL_KEY, toolClaimKey } from '../../model/ids/claim-keys.ts'
import { derivedId, toolCallKey, toolIdempotencyKey } from '../../model/ids/ids.ts'
import type { AIState, ToolRecord } from '../../model/state/ai-state.ts'
import type { SessionState } from '../../model/state/session-state.ts'
import { toolCallInput } from '../../model/state/tool-call-input.ts'
import { runInHandlerContext } from '../../runtime/handler-context.ts'
import { DONE, type RunOutcome } from '../../runtime/wake-up.ts'
import { modelMessagesOf, promptMessages, toolDefinitions } from '../model-step/prompt.ts'
import { warnLeftOut, wellFormedPrompt } from '../model-step/well-formed-prompt.ts'
import { type AtIndexWriter, atIndexWriter } from './at-index-writer.ts'
import { CUT_SHORT, runClaimedWork } from './claimed-work.ts'
import { durableSteps } from './durable-steps.ts'
import { type Fence, isHeld, type ToolsPorts } from './lane-ports.ts'
import { storedEventAt } from './stored-event.ts'

const INTERRUPTED_REPORT =
  'The tool call was interrupted (a crash, a timeout, Stop or Pause now) and may have partly run. It was not run again.'

/**
 * The tools lane. A wake-up without a key scans the session and wakes one
 * keyed run per runnable call (or one serial run with `toolLane: 'tools'`),
 * so calls start as soon as they are authorized and run concurrently.
 */
export async function runToolsLane(
  lane: ToolsPorts,
  sessionId: string,
  key: string | undefined,
): Promise<RunOutcome> {
  const snapshot = await lane.state(sessionId)
  const runnable = runnableTools(snapshot.state.ai)
  if (key === undefined) {
    if (runnable.length === 0) return DONE
    // At the news this run read: a repeat of this run collapses with it.
    const at =
      snapshot.life === undefined ? {} : { at: { life: snapshot.life, index: snapshot.index } }
    await lane.wake(
      lane.config.serialTools
        ? [{ sessionId, lane: 'tools', key: SERIAL_TOOL_KEY, ...at }]
        : runnable.map((tool) => ({ sessionId, lane: 'tools', key: toolCallKey(tool), ...at })),
    )
    return DONE
  }
  const targets =
    key === SERIAL_TOOL_KEY ? runnable : runnable.filter((tool) => toolCallKey(tool) === key)
  // Results go at the index this run knows, without ID guards: each is
  // fenced by its call's claim, which decides whether it may still land.
  const writer = atIndexWriter(lane, sessionId, { from: snapshot, goesOn: () => {} })
  for (const tool of targets) {
    // The serial lane runs its calls in order: one held holds the rest.
    const outcome = await runTool(lane, writer, sessionId, snapshot, tool)
    if (outcome.kind === 'held') return outcome
  }
  return DONE
}

/** A call opened for running: its claim taken, its definition and input found. */
interface OpenedCall {
  record: ToolRecord
  claim: Claim
  fence: Fence
  definition: ExecutableTool<Tool>
  input: unknown
  /** The session as the call runs in it: the state it was opened on, and its life. */
  state: AIState
  life: string | undefined
}

/** How a tool's execution ended, before anything of it is recorded. */
type Execution = { outcome: 'output'; output: unknown } | { outcome: 'error'; errorText: string }

/** An execution as recorded: with the version whose code ran it. */
type RanExecution = Execution & { version: string }

/**
 * One call, in three steps: open it (claim it, or settle it without
 * running: reported after an interruption, or an unknown tool), execute it
 * under the claim, and record its result. A call cut short (Stop, Pause
 * now, a newer attempt) records nothing of its own and acknowledges the
 * stop instead, so a Pause now waiting on it can settle.
 */
async function runTool(
  lane: ToolsPorts,
  writer: AtIndexWriter,
  sessionId: string,
  snapshot: StateSnapshot<SessionState>,
  record: ToolRecord,
): Promise<RunOutcome> {
  const opened = await openCall(lane, writer, sessionId, snapshot, record)
  // Held elsewhere, or settled without running.
  if (!('definition' in opened)) return opened
  // A 'report' call that started is never given back on a failure: the
  // failure may have come after its effect (a throttled result write), so its
  // claim runs out and the next attempt reports it interrupted, not runs it again.
  const report = lane.config.toolRecovery(record.toolName) === 'report'
  let started = false
  const ended = await runClaimedWork(
    lane,
    sessionId,
    opened.claim,
    async (signal) => {
      const execution = await executeCall(lane, writer, sessionId, opened, signal, () => {
        started = true
      })
      if (execution === CUT_SHORT) return CUT_SHORT
      return recordResult(lane, writer, opened, { ...execution, version: lane.config.version })
    },
    { giveBack: () => !(report && started) },
  )
  if (ended === CUT_SHORT) await acknowledgeCutShort(lane, sessionId, record, opened.life)
  return DONE
}

/**
 * Claims the call and finds what it runs. A call whose earlier attempt was
 * interrupted (its claim expired or was revoked) and whose tool says
 * `toolRecovery: 'report'` is not run again: its result says so. So is an
 * unknown tool or one without `execute`. A call whose claim had a holder
 * before is decided on the log as it is under the claim: that attempt may
 * have recorded the call's result since the run read it (a frozen container
 * whose claim ran out), and the call is then done.
 */
async function openCall(
  lane: ToolsPorts,
  writer: AtIndexWriter,
  sessionId: string,
  read: StateSnapshot<SessionState>,
  call: ToolRecord,
): Promise<OpenedCall | RunOutcome> {
  const claimKey = toolClaimKey(call)
  // Held by another attempt until its claim expires: the run looks again then.
  const claim = await lane.claims.take(sessionId, claimKey, read.life)
  if (isHeld(claim)) return claim
  const snapshot = claim.previous === undefined ? read : await lane.state(sessionId)
  const record = runnableTools(snapshot.state.ai).find(
    (tool) => tool.toolCallId === call.toolCallId && tool.generationId === call.generationId,
  )
  if (snapshot.life !== read.life || record === undefined) {
    await lane.claims.release(sessionId, claim)
    return DONE
  }
  writer.at(snapshot.index)
  const state = snapshot.state.ai
  const { life } = snapshot
  const fence = { claim: claim.key, attempt: claim.attempt }
  const settle = async (errorText: string) => {
    await writer.appendLast(
      toolResult(record, resultId(record, claim), { outcome: 'error', errorText }),
      { fence, controller: lane.config.controller },
    )
    return DONE
  }
  const interrupted = claim.previous === 'expired' || claim.previous === 'revoked'
  if (interrupted && lane.config.toolRecovery(record.toolName) === 'report') {
    return settle(INTERRUPTED_REPORT)
  }
  const tools = lane.config.tools
  const definition: Tool | undefined = Object.hasOwn(tools, record.toolName)
    ? tools[record.toolName]
    : undefined
  if (!definition || !isExecutableTool(definition)) {
    const version = lane.config.version
    return settle(
      definition
        ? `Tool "${record.toolName}" has no execute function`
        : record.version === undefined || record.version === version
          ? `Unknown tool "${record.toolName}"`
          : `Unknown tool "${record.toolName}": version ${version} of the agent has no such tool (the call was made under version ${record.version}; the tool was removed or renamed since)`,
    )
  }
  const input = await inputUnderThisVersion(lane, record, definition, toolCallInput(state, record))
  if ('refused' in input) {
    lane.config.logger.warn(
      `a2: tool call ${record.toolCallId} of session ${sessionId} was not run: ${input.refused}`,
    )
    return settle(input.refused)
  }
  return { record, claim, fence, definition, input: input.input, state, life }
}

/**
 * A call made under another version of the agent (a deploy came between
 * the model's step and the call's run: an approval a day later, a queued
 * call) is checked against the tool's input schema as this version has it,
 * so no tool runs on input its current schema refuses: the model is told
 * why, and the turn goes on; input it accepts runs as that schema outputs
 * it (a field the new version added with a default gets it). A call made
 * under this version was checked when it was made: its stored input is the
 * schema's output, which a transforming schema would not accept twice.
 */
async function inputUnderThisVersion(
  lane: ToolsPorts,
  record: ToolRecord,
  definition: Tool,
  input: unknown,
): Promise<{ input: unknown } | { refused: string }> {
  const { version } = lane.config
  if (record.version === version || definition.inputSchema === undefined) return { input }
  const checked = await safeValidateTypes({
    value: input,
    schema: asSchema(definition.inputSchema),
  })
  if (checked.success) return { input: checked.value }
  const madeUnder =
    record.version === undefined ? 'an earlier version' : `version ${record.version}`
  return {
    refused: `The call's input no longer fits tool "${record.toolName}" as version ${version} of the agent defines it (the call was made under ${madeUnder}; the tool's input schema changed since), so the tool was not run: ${checked.error.message}`,
  }
}

/**
 * Runs the tool with its context (`ctx.event`, the session, durable steps,
 * the idempotency key) and streams its preliminary outputs into the log. A
 * tool's own error is its result; a step that could not be recorded is A2's
 * failure, which throws (the claim goes back and the call runs again,
 * skipping recorded steps).
 */
async function executeCall(
  lane: ToolsPorts,
  writer: AtIndexWriter,
  sessionId: string,
  { record, claim, fence, definition, input, state, life }: OpenedCall,
  signal: AbortSignal,
  onStart: () => void,
): Promise<Execution | typeof CUT_SHORT> {
  // The tool's `ctx.event` is its `ai.tool.called` event, as stored; its
  // timers count from that event's time, so a retried call sets the same ones.
  const calledEvent = await calledEventOf(lane, sessionId, record)
  const idempotencyKey = toolIdempotencyKey(sessionId, record, life)
  const session = lane.session(sessionId, {
    from: () => calledEvent.timestamp,
    call: idempotencyKey,
    ...(life === undefined ? {} : { life }),
  })
  // Recorded steps are the logical call's, whichever attempt's claim ran them.
  const scope = toolClaimKey(record)
  const steps = durableSteps(lane, sessionId, {
    scope,
    recorded: state.durableSteps[scope],
    fence,
    life,
  })
  const prompt = await wellFormedPrompt(
    promptMessages(state),
    warnLeftOut(lane.config.logger, sessionId),
  )
  const messages = await modelMessagesOf(prompt, toolDefinitions(lane.config.tools))
  let execution: Execution | typeof CUT_SHORT
  try {
    const output = await runInHandlerContext(
      {
        event: calledEvent,
        attempt: claim.attempt,
        session,
        signal,
        agentName: lane.config.name,
        idempotencyKey,
        step: steps.step,
      },
      async () => {
        onStart()
        let preliminary = 0
        for await (const part of executeTool({
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
          if (part.type === 'final') return part.output
          preliminary++
          const id = derivedId(
            'tool-preliminary',
            record.generationId,
            record.toolCallId,
            claim.attempt,
            preliminary,
          )
          await writer.append(
            [toolResult(record, id, { outcome: 'output', output: part.output, preliminary: true })],
            { fence },
          )
        }
        return undefined
      },
    )
    execution = { outcome: 'output', output: output ?? null }
  } catch (error) {
    execution =
      hasA2Code(error, 'FENCED_OUT') || hasA2Code(error, 'LIFE_ENDED') || signal.aborted
        ? CUT_SHORT
        : { outcome: 'error', errorText: messageOf(error) }
    // The model is told; the server's log says it too, with the stack.
    if (execution !== CUT_SHORT && steps.failure() === undefined) {
      lane.config.logger.warn(
        `a2: tool ${record.toolName} (call ${record.toolCallId}) of session ${sessionId} threw, and the model gets its error: ${execution.errorText}`,
        error,
      )
    }
  }
  if (steps.failure() !== undefined) throw steps.failure()
  return signal.aborted ? CUT_SHORT : execution
}

/**
 * Records the call's result under its fence. An output the log refuses (too
 * large, not JSON) would be refused on every run: the call fails with the
 * reason instead of running again.
 */
async function recordResult(
  lane: ToolsPorts,
  writer: AtIndexWriter,
  { record, claim, fence }: OpenedCall,
  execution: RanExecution,
): Promise<void> {
  const id = resultId(record, claim)
  // With the controller's decision after it (the next step, say), so
  // admission need not wake for it.
  const options = { fence, controller: lane.config.controller }
  try {
    await writer.appendLast(toolResult(record, id, execution), options)
  } catch (error) {
    if (!isContentRefusal(error)) throw error
    const errorText = `A2 could not store the tool's output: ${error.message}. Store large content elsewhere (S3, your database) and return a reference`
    const { version } = execution
    await writer.appendLast(
      toolResult(record, id, { outcome: 'error', errorText, version }),
      options,
    )
  }
}

/**
 * The tool has returned after being cut short: a Pause now waiting for this
 * call to settle can now record it (controller/pause-settlement.ts). Best
 * effort: if it cannot be written, the pause's settle timer records it.
 */
async function acknowledgeCutShort(
  lane: ToolsPorts,
  sessionId: string,
  record: ToolRecord,
  life: string | undefined,
): Promise<void> {
  try {
    const { state, life: now } = await lane.state(sessionId)
    if (now !== life) return // the session's life ended: nothing waits on this call
    const acknowledgement = cutShortAcknowledgement(state.ai, record)
    if (acknowledgement) await lane.append(sessionId, [acknowledgement], { at: 'end', life })
  } catch (error) {
    lane.config.logger.warn(
      `a2: could not acknowledge the stop of tool call ${record.toolCallId} in session ${sessionId}: ${messageOf(error)}`,
    )
  }
}

const resultId = (record: ToolRecord, claim: Claim): string =>
  derivedId('tool-result', record.generationId, record.toolCallId, claim.attempt)

type ToolResultPayload = Extract<AIEventInput<UIMessage>, { type: 'ai.tool.result' }>['payload']

/** The call's `ai.tool.result` event with this ID. */
function toolResult(
  record: ToolRecord,
  id: string,
  result: Omit<ToolResultPayload, 'toolCallId' | 'generationId' | 'messageId'>,
): AIEventInput<UIMessage> {
  return {
    id,
    type: 'ai.tool.result',
    payload: {
      toolCallId: record.toolCallId,
      generationId: record.generationId,
      messageId: record.messageId,
      ...result,
    } as ToolResultPayload,
  }
}

/**
 * The call's `ai.tool.called` event as stored. A call whose approval was
 * recorded before the call itself (A2 writes both in one append, so only a
 * hand-written log does this) has no stored position: it gets the event its
 * record describes.
 */
async function calledEventOf(
  lane: Pick<ToolsPorts, 'read' | 'config'>,
  sessionId: string,
  record: ToolRecord,
): Promise<StoredEvent> {
  if (record.called) return storedEventAt(lane.read, sessionId, record.called)
  const { status: _status, ...payload } = record
  return {
    id: derivedId('tool-called', record.generationId, record.toolCallId),
    type: 'ai.tool.called',
    payload,
    sessionId,
    life: '',
    index: 0,
    timestamp: lane.config.now(),
  }
}
