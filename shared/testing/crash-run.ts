import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider'
import type { ToolSet, UIMessage } from 'ai'
import { inputs } from '../ai/inputs/inputs.ts'
import { type Agent, agent } from '../ai/server/agent.ts'
import type { AgentOptions } from '../ai/server/agent-options.ts'
import { RECOVER_KEY } from '../ai/server/recovery.ts'
import type { AIState } from '../ai/state/ai-state.ts'
import type { StoredEvent } from '../log/event.ts'
import type { EventStore } from '../log/event-store.ts'
import { messageOf } from '../log/message-of.ts'
import type { Timer } from '../runtime/scheduler.ts'
import { type WakeUp, wakeUpGroup } from '../runtime/wake-up.ts'
import {
  CrashError,
  CrashPoints,
  crashingDispatcher,
  crashingModel,
  crashingScheduler,
  crashingStore,
  crashingTools,
} from './crash-ports.ts'
import { effectObserved } from './effect-observer.ts'
import { type Step, scriptedModel } from './scripted-model.ts'

/** One thing the user does, once the session has nothing left to do. */
export type ConversationAction =
  /** Sends a user message (its ID: `m<position>`). */
  | { user: string }
  /** Answers the pending approval. */
  | { approve: boolean }
  /** Stops the active turn at what the user saw. */
  | { stop: true }
  /** Steers the active turn with a message (after its current step). */
  | { steer: string }
  /** Lets time pass (timers fire when due). */
  | { wait: number }

/** Your agent, as the harness runs it: it supplies the model, store, dispatch, timers and clock. */
export type CrashTestAgent<Tools extends ToolSet = ToolSet> = Omit<
  AgentOptions<Tools>,
  'model' | 'store' | 'dispatcher' | 'scheduler' | 'now' | 'retry'
>

/** Effects your tools' fake services record; see `effectLedger()`. */
export interface EffectLedger {
  readonly name: string
  /**
   * Performs an effect, once per idempotency key as an API that takes one
   * does; without a key, every call performs it. True when it performed.
   */
  perform(what: string, idempotencyKey?: string): boolean
  /** The effects performed, in order. */
  readonly performed: readonly string[]
  reset(): void
}

/** A fake external service's record of effects (charges, emails, messages sent). */
export function effectLedger(name = 'effects'): EffectLedger {
  const keys = new Set<string>()
  const performed: string[] = []
  return {
    name,
    performed,
    perform(what, idempotencyKey) {
      if (idempotencyKey !== undefined) {
        if (keys.has(idempotencyKey)) {
          effectObserved(name, what, false)
          return false
        }
        keys.add(idempotencyKey)
      }
      performed.push(what)
      effectObserved(name, what, true)
      return true
    },
    reset() {
      keys.clear()
      performed.length = 0
    },
  }
}

export interface CrashRunOptions<Tools extends ToolSet = ToolSet> {
  agent: CrashTestAgent<Tools>
  /** The model's answers, one per model step: `text()`, `toolCalls()`. */
  model: Step[]
  conversation: readonly ConversationAction[]
  /** A fresh store for a run, on the harness's clock (default: the memory store). */
  store: (now: () => number) => EventStore | Promise<EventStore>
  effects: readonly EffectLedger[]
  sessionId: string
}

export interface CrashRun {
  /** The points the run's processes reached, in order; the crash is the last of the first process. */
  labels: string[]
  crash: CrashError | undefined
  events: StoredEvent[]
  state: AIState
  /** Every event an append returned, as it returned it: none may be lost. */
  appended: { id: string; index: number }[]
  effects: Record<string, string[]>
  /** Work that never finished: a failing lane, a livelock. */
  stuck: string[]
}

/**
 * A2's default claim TTL. Renewals run on real time (every third of it), so
 * a run, which takes far less, renews nothing and its points stay the same
 * from run to run; recovery lets it pass on the harness's clock.
 */
const CLAIM_TTL_MS = 30_000
const MAX_WAKE_UPS = 2_000
const MAX_FAILURES = 5
const quiet = { info() {}, warn() {}, error() {} }

/**
 * Model steps chosen by position, not by call order: the steps the log
 * records as completed are the ones already answered. A step regenerated
 * after a crash gets the same answer, as a deterministic provider would give,
 * and a compacted prompt changes nothing.
 */
export function positionalModel(
  steps: Step[],
  store: EventStore,
  sessionId: string,
): LanguageModelV4 {
  let next: Step | undefined
  const scripted = scriptedModel(() => next).model
  return {
    specificationVersion: 'v4',
    provider: scripted.provider,
    modelId: scripted.modelId,
    supportedUrls: scripted.supportedUrls,
    doGenerate: (options: LanguageModelV4CallOptions) => scripted.doGenerate(options),
    async doStream(options: LanguageModelV4CallOptions) {
      const answered = (await store.read(sessionId)).filter(
        (event) =>
          event.type === 'ai.generation.completed' &&
          (event.payload as { outcome?: string }).outcome === 'success',
      ).length
      next = steps[answered]
      return scripted.doStream(options)
    },
  }
}

/** Runs the conversation once; with `crashAt`, the first process dies at that point and a fresh one recovers. */
export async function runConversation<Tools extends ToolSet>(
  options: CrashRunOptions<Tools>,
  crashAt?: number,
): Promise<CrashRun> {
  let time = Date.UTC(2026, 0, 1)
  const now = () => time
  const store = await options.store(now)
  const queue: WakeUp[] = []
  const timers: Timer[] = []
  const waits = new Map<number, number>()
  const appended: { id: string; index: number }[] = []
  const labels: string[] = []
  const stuck: string[] = []
  for (const ledger of options.effects) ledger.reset()
  const sessionId = options.sessionId
  const model = positionalModel(options.model, store, sessionId)

  const dispatcher = {
    async wake(wakeUps: readonly WakeUp[]) {
      for (const wakeUp of wakeUps) {
        const group = wakeUpGroup(wakeUp)
        if (!queue.some((queued) => wakeUpGroup(queued) === group)) queue.push(wakeUp)
      }
    },
  }
  const scheduler = {
    async schedule(timer: Timer) {
      if (!timers.some((set) => set.sessionId === timer.sessionId && set.name === timer.name)) {
        timers.push(structuredClone(timer))
      }
    },
    async cancel(sessionId: string) {
      const kept = timers.filter((set) => set.sessionId !== sessionId)
      const cancelled = timers.length - kept.length
      timers.splice(0, timers.length, ...kept)
      return cancelled
    },
  }

  function start(crashPoint?: number): { a: Agent; points: CrashPoints } {
    const points = new CrashPoints(crashPoint)
    const definition = options.agent
    const generation = definition.harness?.generation
    const a = agent({
      ...definition,
      model: crashingModel(model, points),
      ...(definition.tools ? { tools: crashingTools(definition.tools, points) } : {}),
      store: crashingStore(store, points, (_sessionId, events) => appended.push(...events)),
      dispatcher: crashingDispatcher(dispatcher, points),
      scheduler: crashingScheduler(scheduler, points),
      now,
      claimTtlMs: CLAIM_TTL_MS,
      logger: quiet,
      // Each chunk is written as it comes: the points do not depend on timing.
      harness: {
        type: 'ai-sdk',
        ...definition.harness,
        generation: { ...generation, progress: { windowMs: 0, maxWindowMs: 0, maxChunks: 1 } },
      },
    } as AgentOptions<ToolSet>)
    return { a, points }
  }

  /** Runs queued wake-ups and due timers until there are none (a process's whole life, if it dies). */
  async function settle(process: { a: Agent; points: CrashPoints }): Promise<void> {
    const failures = new Map<string, number>()
    for (let runs = 0; ; runs++) {
      if (process.points.crashed) throw process.points.crashed
      if (runs > MAX_WAKE_UPS) {
        stuck.push(`more than ${MAX_WAKE_UPS} wake-ups: a livelock`)
        return
      }
      const wakeUp = queue.shift()
      if (!wakeUp) {
        const due = timers.findIndex((timer) => timer.at <= time)
        if (due === -1) return
        await process.a.runtime.fireTimer(timers[due] as Timer)
        timers.splice(due, 1)
        continue
      }
      try {
        const outcome = await process.a.runtime.run(wakeUp)
        if (outcome.kind === 'held') {
          // Held by a dead process until its claim expires: let that time pass.
          time = Math.max(time, outcome.retryAt + 1)
          queue.push(wakeUp)
        }
      } catch (error) {
        if (process.points.crashed) {
          // The queue delivers a message its consumer died holding again.
          queue.unshift(wakeUp)
          throw process.points.crashed
        }
        const group = wakeUpGroup(wakeUp)
        const failed = (failures.get(group) ?? 0) + 1
        failures.set(group, failed)
        if (failed >= MAX_FAILURES) {
          stuck.push(`the ${wakeUp.lane} lane failed ${failed} times: ${messageOf(error)}`)
          continue
        }
        queue.push(wakeUp)
      }
    }
  }

  async function perform(a: Agent, action: ConversationAction, position: number): Promise<void> {
    const session = a.session(sessionId)
    const { state, index } = await session.state()
    if ('user' in action) {
      const message: UIMessage = {
        id: `m${position}`,
        role: 'user',
        parts: [{ type: 'text', text: action.user }],
      }
      await session.append(...inputs.message(message))
    } else if ('approve' in action) {
      const pending = state.pendingApprovals[0]
      if (pending) {
        await session.append(
          ...inputs.approval(pending, { approved: action.approve, id: `approval-${position}` }),
        )
      }
    } else if ('stop' in action) {
      if (state.active) {
        await session.append(
          ...inputs.stop({ turnId: state.active.turnId, frontier: index, id: `stop-${position}` }),
        )
      }
    } else if ('steer' in action) {
      const message: UIMessage = {
        id: `m${position}`,
        role: 'user',
        parts: [{ type: 'text', text: action.steer }],
      }
      await session.append(
        ...inputs.steer(message, { afterStepOf: state.activeGeneration?.generationId ?? null }),
      )
    } else {
      // Redone after a crash, a wait ends when it first would have.
      const until = waits.get(position) ?? time + action.wait
      waits.set(position, until)
      time = Math.max(time, until)
    }
  }

  let process = start(crashAt)
  const dead: Agent[] = []
  let crash: CrashError | undefined
  let position = 0
  for (;;) {
    try {
      await settle(process)
      if (position === options.conversation.length) break
      await perform(process.a, options.conversation[position] as ConversationAction, position)
      if (process.points.crashed) throw process.points.crashed
      position++
    } catch (error) {
      if (!(error instanceof CrashError) || crash) throw error
      crash = error
      labels.push(...process.points.labels)
      dead.push(process.a)
      // The process is gone: nothing of it is cleaned up or flushed. Its
      // claims expire, the queue delivers what it held, and a reader's
      // recovery wake-up (what `fetch` sends) looks for work it left.
      time += CLAIM_TTL_MS + 1
      process = start()
      queue.push({ sessionId, lane: 'admission', key: RECOVER_KEY })
    }
  }
  labels.push(...process.points.labels)
  const events = await store.read(sessionId)
  const { state } = await process.a.session(sessionId).state()
  // Only now, with the run checked out: a dead process's timers and
  // in-memory work go with it (any I/O it tried would throw CrashError).
  for (const a of [...dead, process.a]) a.runtime.close()
  return {
    labels,
    crash,
    events,
    state,
    appended,
    effects: Object.fromEntries(
      options.effects.map((ledger) => [ledger.name, [...ledger.performed]]),
    ),
    stuck,
  }
}
