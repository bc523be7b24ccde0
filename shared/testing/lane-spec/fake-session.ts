import type { UIMessageChunk } from 'ai'
import type { StoredEvent } from '../../log/event.ts'
import { controllerRounds } from '../../model/controller/controller-rounds.ts'
import type { Decision } from '../../model/controller/decide.ts'
import { dueGeneration } from '../../model/controller/due-work.ts'
import {
  attemptOpening,
  generationCompleted,
  stepToServe,
} from '../../model/controller/generation-attempt.ts'
import type { AIEventInput } from '../../model/events/ai-events.ts'
import type { ControlCommandInput } from '../../model/inputs/command.ts'
import { type AIState, initialAIState } from '../../model/state/ai-state.ts'
import { reduceAIState } from '../../model/state/reduce-ai-state.ts'

export interface FakeSessionOptions {
  /** The controller's step budget (default 20). */
  maxSteps?: number
  /**
   * The session the events are of, which the IDs the runtime derives from
   * it name (default `s1`, a lane spec's default): a lane spec's own
   * (`laneSpec({ sessionId })`), for a history it runs a lane on.
   */
  sessionId?: string
}

/**
 * A session driven the way the runtime drives it, with no store and no
 * lanes: commands and runtime facts (generation and tool events) are
 * appended, then the controller runs the production rounds
 * (`controllerRounds`, what the controller lane appends) until nothing more
 * is due. The log and the fold are real; the model and tools are scripted
 * by hand (`start`, `text`, `callTool`, `toolResult`, `complete`) and no
 * claims are read: nothing runs to ask. What it is for: testing the
 * controller's decisions on the fold alone, and building the history a lane
 * spec starts from (`laneSpec().given(session)`), with the IDs the runtime
 * would have written.
 */
export class FakeSession {
  readonly log: StoredEvent[] = []
  state: AIState = initialAIState()
  readonly maxSteps: number
  private readonly sessionId: string
  private generations = 0
  private commands = 0

  constructor(options: FakeSessionOptions = {}) {
    this.maxSteps = options.maxSteps ?? 20
    this.sessionId = options.sessionId ?? 's1'
  }

  /** The log index the client has seen: its frontier. */
  get index(): number {
    return this.log.length
  }

  append(...events: readonly (AIEventInput | ControlCommandInput)[]): StoredEvent[] {
    const stored: StoredEvent[] = []
    for (const event of events) {
      const id = event.id ?? `cmd-${++this.commands}`
      if (this.log.some((existing) => existing.id === id)) continue // replay
      const next: StoredEvent = {
        id,
        type: event.type,
        payload: event.payload,
        sessionId: this.sessionId,
        life: '',
        index: this.log.length + 1,
        timestamp: 0,
      }
      this.log.push(next)
      this.state = reduceAIState(this.state, next)
      stored.push(next)
    }
    return stored
  }

  /**
   * Pushes one command and lets the controller run: returns its decision,
   * read off its receipt, and the events the rounds appended.
   */
  push(commands: readonly ControlCommandInput[]): Decision {
    const [command] = commands
    if (command === undefined) throw new Error('no command')
    const [stored] = this.append(command)
    if (stored === undefined) throw new Error('command replayed')
    const events = this.settle()
    const receipt = events.find(
      (event) =>
        event.type === 'ai.control.decided' &&
        (event.payload as { commandId: string }).commandId === stored.id,
    )?.payload as { outcome: Decision['outcome']; reason?: Decision['reason'] } | undefined
    if (receipt === undefined) throw new Error(`command ${stored.id} was not decided`)
    return {
      events: events as never,
      outcome: receipt.outcome,
      ...(receipt.reason === undefined ? {} : { reason: receipt.reason }),
    }
  }

  /** Appends runtime facts, then lets the controller run. */
  fact(...events: AIEventInput[]): void {
    this.append(...events)
    this.settle()
  }

  /** The production rounds until nothing more is due; returns what they appended. */
  settle(): StoredEvent[] {
    const { events, stop } = controllerRounds(
      this.state,
      { maxSteps: this.maxSteps },
      { decides: true, revokes: true, passesPausing: true },
    )
    if (stop !== 'settled') throw new Error(`the controller's rounds stopped: ${stop}`)
    return this.append(...events)
  }

  /** Starts the due generation as the generation lane does (its first attempt); returns its ID. */
  start(): string {
    const serve = stepToServe(this.state)
    if (serve === null || dueGeneration(this.state) === null)
      throw new Error('no generation is due')
    const generationId = `gen-${++this.generations}`
    this.fact(
      ...attemptOpening(this.state, {
        sessionId: this.sessionId,
        serve,
        generationId,
        attempt: 1,
        requestMetadata: false,
      }),
    )
    return generationId
  }

  progress(generationId: string, chunks: UIMessageChunk[]): void {
    this.fact({
      id: `progress:${generationId}:${this.log.length}`,
      type: 'ai.generation.progress',
      payload: { generationId, chunks },
    })
  }

  text(generationId: string, text: string, partId = 't1'): void {
    this.progress(generationId, [
      { type: 'start-step' },
      { type: 'text-start', id: partId },
      { type: 'text-delta', id: partId, delta: text },
      { type: 'text-end', id: partId },
    ])
  }

  /** Closes a step as the generation lane does. */
  complete(generationId: string, outcome: 'success' | 'failed' | 'interrupted' = 'success'): void {
    const requestId = this.state.activeGeneration?.requestId ?? 'unknown'
    this.fact(
      generationCompleted(generationId, requestId, {
        outcome,
        ...(outcome === 'failed' ? { error: 'provider down' } : {}),
      }),
    )
  }

  /**
   * A tool call streamed by the model and recorded for execution: a call of
   * `closeTicket` with `{ ticketId: 'T-1' }` unless `toolName` and `input`
   * say otherwise; with `approval`, its approval request under that ID.
   */
  callTool(
    generationId: string,
    toolCallId: string,
    options: { approval?: string; toolName?: string; input?: unknown } = {},
  ): void {
    const active = this.state.active
    if (active === null) throw new Error('no active turn')
    const toolName = options.toolName ?? 'closeTicket'
    const input = options.input ?? { ticketId: 'T-1' }
    this.progress(generationId, [
      { type: 'tool-input-start', toolCallId, toolName },
      { type: 'tool-input-delta', toolCallId, inputTextDelta: JSON.stringify(input) },
      { type: 'tool-input-available', toolCallId, toolName, input },
    ])
    const identity = {
      toolCallId,
      generationId,
      messageId: active.responseMessageId,
      turnId: active.turnId,
    }
    this.fact({
      id: `called:${generationId}:${toolCallId}`,
      type: 'ai.tool.called',
      payload: { ...identity, toolName },
    })
    if (options.approval) {
      this.fact({
        id: `approval:${options.approval}`,
        type: 'ai.approval.requested',
        payload: {
          ...identity,
          approvalId: options.approval,
          toolName,
          input,
        },
      })
    }
  }

  /**
   * A provider-executed call: `answered` streams its result in the same
   * response (recorded as the generation lane does); otherwise a later
   * response answers it, or, with `deferred`, `inputs.toolResult()`.
   */
  callProviderTool(
    generationId: string,
    toolCallId: string,
    options: { answered: boolean; deferred: boolean },
  ): void {
    const active = this.state.active
    if (active === null) throw new Error('no active turn')
    const input = { query: 'a2' }
    this.progress(generationId, [
      { type: 'tool-input-start', toolCallId, toolName: 'webSearch', providerExecuted: true },
      {
        type: 'tool-input-available',
        toolCallId,
        toolName: 'webSearch',
        input,
        providerExecuted: true,
      },
      ...(options.answered
        ? [
            {
              type: 'tool-output-available' as const,
              toolCallId,
              output: { hits: 1 },
              providerExecuted: true,
            },
          ]
        : []),
    ])
    const messageId = active.responseMessageId
    this.fact({
      id: `called:${generationId}:${toolCallId}`,
      type: 'ai.tool.called',
      payload: {
        toolCallId,
        generationId,
        messageId,
        turnId: active.turnId,
        toolName: 'webSearch',
        providerExecuted: true,
        ...(options.deferred ? { deferredResult: true } : {}),
      },
    })
    if (options.answered) {
      this.fact({
        id: `provider-result:${generationId}:${toolCallId}`,
        type: 'ai.tool.result',
        payload: {
          toolCallId,
          generationId,
          messageId,
          outcome: 'output',
          output: { hits: 1 },
          providerExecuted: true,
        },
      })
    }
  }

  toolResult(generationId: string, toolCallId: string, output: unknown = { closed: true }): void {
    const messageId = this.state.active?.responseMessageId ?? 'gone'
    this.fact({
      id: `result:${generationId}:${toolCallId}:${this.log.length}`,
      type: 'ai.tool.result',
      payload: { toolCallId, generationId, messageId, outcome: 'output', output },
    })
  }

  /** Runs a whole plain-text response for the due generation. */
  respond(text: string): string {
    const generationId = this.start()
    this.text(generationId, text)
    this.complete(generationId)
    return generationId
  }

  eventsOf(type: string): StoredEvent[] {
    return this.log.filter((event) => event.type === type)
  }

  messageIds(): string[] {
    return this.state.messages.map((message) => message.id)
  }

  inboxIds(): string[] {
    return this.state.inbox.items.map((item) => item.id)
  }

  lastReceipt(): AIState['receipt'] {
    return this.state.receipt
  }
}
