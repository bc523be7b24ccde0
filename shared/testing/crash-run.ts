import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider'
import type { ToolSet, UIMessage } from 'ai'
import { type Agent, agent } from '../agent/wiring/agent.ts'
import type { AgentOptions } from '../agent/wiring/agent-options.ts'
import { RECOVER_KEY } from '../agent/wiring/recovery.ts'
import type { StoredEvent } from '../log/event.ts'
import type { EventStore } from '../log/event-store.ts'
import { messageOf } from '../log/message-of.ts'
import type { ControlCommandInput } from '../model/inputs/command.ts'
import { inputs } from '../model/inputs/inputs.ts'
import type { AIState } from '../model/state/ai-state.ts'
import type { Timer } from '../runtime/scheduler.ts'
import { type WakeUp, wakeUpGroup } from '../runtime/wake-up.ts'
import { sleep } from '../timing/sleep.ts'
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
  /** Where the first process froze (with `freeze`): a second one took over beside it. */
  frozen: string | undefined
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
/** How often a settling process looks whether a run under way waits for the user. */
const USER_WAIT_POLL_MS = 20

type RunResult = { outcome: Awaited<ReturnType<Agent['runtime']['run']>> } | { error: unknown }

/** One process of a run: its agent, its crash points, its runs left waiting for the user. */
interface Process {
  a: Agent
  points: CrashPoints
  /** Runs that hold a step open for the user's answer, with their wake-ups. */
  waiting: { wakeUp: WakeUp; running: Promise<RunResult> }[]
  /** Wake-ups held by this process's own waiting runs: run again after them. */
  heldBehind: WakeUp[]
  /** The wake-up it runs now: the queue delivers it again once its lease runs out. */
  current?: WakeUp
}

/**
 * Model steps chosen by position, not by call order: the steps the log
 * records as completed are the ones already answered. A step regenerated
 * after a crash gets the same answer, as a deterministic provider would give,
 * and a compacted prompt changes nothing.
 * @internal Exported for the pipeline's crash test (knip --production).
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

/**
 * Runs the conversation once; with `crashAt`, the first process dies at
 * that point and a fresh one recovers. With `freeze`, it does not die: it
 * stops there while its claims run out, a fresh one takes its work over
 * and settles, and then it thaws and goes on with what it knew beside the
 * new one (a takeover while the first still writes).
 */
export async function runConversation<Tools extends ToolSet>(
  options: CrashRunOptions<Tools>,
  crashAt?: number,
  { freeze = false }: { freeze?: boolean } = {},
): Promise<CrashRun> {
  const clock = { time: Date.UTC(2026, 0, 1) }
  const store = await options.store(() => clock.time)
  for (const ledger of options.effects) ledger.reset()
  return new Conversation(options, store, clock, freeze).play(crashAt)
}

/**
 * One run of a conversation: the store, queue and timers its processes
 * share on one clock, what they did, and the processes (dead, frozen, the
 * one it goes on with).
 */
class Conversation<Tools extends ToolSet> {
  private readonly sessionId: string
  private readonly now = (): number => this.clock.time
  private readonly queue: WakeUp[] = []
  private readonly timers: Timer[] = []
  private readonly waits = new Map<number, number>()
  /** What each action appended (or was about to), by its position in the conversation. */
  private readonly sent = new Map<number, ControlCommandInput<UIMessage>[]>()
  private readonly appended: { id: string; index: number }[] = []
  private readonly labels: string[] = []
  private readonly stuck: string[] = []
  private readonly dead: Agent[] = []
  private frozen: string | undefined

  private readonly dispatcher = {
    wake: async (wakeUps: readonly WakeUp[]) => {
      for (const wakeUp of wakeUps) {
        const group = wakeUpGroup(wakeUp)
        if (!this.queue.some((queued) => wakeUpGroup(queued) === group)) this.queue.push(wakeUp)
      }
    },
  }

  private readonly scheduler = {
    schedule: async (timer: Timer) => {
      const { timers } = this
      if (!timers.some((set) => set.sessionId === timer.sessionId && set.name === timer.name)) {
        timers.push(structuredClone(timer))
      }
    },
    cancel: async (sessionId: string) => {
      const { timers } = this
      const kept = timers.filter((set) => set.sessionId !== sessionId)
      const cancelled = timers.length - kept.length
      timers.splice(0, timers.length, ...kept)
      return cancelled
    },
  }

  private readonly options: CrashRunOptions<Tools>
  private readonly store: EventStore
  private readonly clock: { time: number }
  private readonly freeze: boolean

  constructor(
    options: CrashRunOptions<Tools>,
    store: EventStore,
    clock: { time: number },
    freeze: boolean,
  ) {
    this.options = options
    this.store = store
    this.clock = clock
    this.freeze = freeze
    this.sessionId = options.sessionId
  }

  private start(crashPoint?: number, freezing = false): Process {
    const points = new CrashPoints(crashPoint, { freeze: freezing })
    const definition = this.options.agent
    const generation = definition.harness?.generation
    const a = agent({
      ...definition,
      // Each process its own provider connection: a frozen one's open stream holds no other's.
      model: crashingModel(positionalModel(this.options.model, this.store, this.sessionId), points),
      ...(definition.tools ? { tools: crashingTools(definition.tools, points) } : {}),
      store: crashingStore(this.store, points, (_sessionId, events) =>
        this.appended.push(...events),
      ),
      dispatcher: crashingDispatcher(this.dispatcher, points),
      scheduler: crashingScheduler(this.scheduler, points),
      now: this.now,
      claimTtlMs: CLAIM_TTL_MS,
      logger: quiet,
      // Each chunk is written as it comes: the points do not depend on timing.
      harness: {
        type: 'ai-sdk',
        ...definition.harness,
        generation: { ...generation, progress: { windowMs: 0, maxWindowMs: 0, maxChunks: 1 } },
      },
    } as AgentOptions<ToolSet>)
    return { a, points, waiting: [], heldBehind: [] }
  }

  /**
   * Runs queued wake-ups and due timers until there are none (a process's
   * whole life, if it dies). A run that waits for the user (an external
   * loop's permission request holds its step open) is left running: the
   * process settles with it waiting, the next action answers, and the run
   * is awaited once the queue is empty again.
   */
  private async settle(process: Process): Promise<void> {
    const failures = new Map<string, number>()
    for (let runs = 0; ; runs++) {
      await process.points.stillFrozen()
      if (process.points.crashed) throw process.points.crashed
      if (runs > MAX_WAKE_UPS) {
        this.stuck.push(`more than ${MAX_WAKE_UPS} wake-ups: a livelock`)
        return
      }
      let wakeUp = this.queue.shift()
      let running: Promise<RunResult>
      process.current = wakeUp
      if (wakeUp) running = this.runOf(process, wakeUp)
      else {
        const due = this.timers.findIndex((timer) => timer.at <= this.clock.time)
        if (due !== -1) {
          await process.a.runtime.fireTimer(this.timers[due] as Timer)
          this.timers.splice(due, 1)
          continue
        }
        const waiting = process.waiting.shift()
        if (!waiting) return
        ;({ wakeUp, running } = waiting)
      }
      const result = await this.untilSettledOrWaiting(process, running)
      if (result === 'waiting') {
        process.waiting.push({ wakeUp, running })
        // The user's turn, once nothing else is due.
        if (this.queue.length === 0 && !this.timers.some((timer) => timer.at <= this.clock.time))
          return
        continue
      }
      if (process.waiting.length === 0) this.queue.push(...process.heldBehind.splice(0))
      if ('outcome' in result) this.afterOutcome(process, wakeUp, result.outcome)
      else this.afterError(process, wakeUp, result.error, failures)
    }
  }

  /** A run that ended: a wake-up held by a claim runs again once the claim is free. */
  private afterOutcome(
    process: Process,
    wakeUp: WakeUp,
    outcome: Extract<RunResult, { outcome: unknown }>['outcome'],
  ): void {
    if (outcome.kind !== 'held') return
    if (process.waiting.length > 0) {
      // Held by this process's own waiting run: after it, not after a lapse.
      process.heldBehind.push(wakeUp)
      return
    }
    // Held by a dead process until its claim expires: let that time pass.
    this.clock.time = Math.max(this.clock.time, outcome.retryAt + 1)
    this.queue.push(wakeUp)
  }

  /** A run that failed: the process died (the wake-up comes again), or it is retried a few times. */
  private afterError(
    process: Process,
    wakeUp: WakeUp,
    error: unknown,
    failures: Map<string, number>,
  ): void {
    if (process.points.crashed) {
      // The queue delivers a message its consumer died holding again.
      this.queue.unshift(wakeUp)
      throw process.points.crashed
    }
    const group = wakeUpGroup(wakeUp)
    const failed = (failures.get(group) ?? 0) + 1
    failures.set(group, failed)
    if (failed >= MAX_FAILURES) {
      this.stuck.push(`the ${wakeUp.lane} lane failed ${failed} times: ${messageOf(error)}`)
      return
    }
    this.queue.push(wakeUp)
  }

  /** A run's outcome or its error, never a rejection (a waiting run may outlive its process). */
  private runOf(process: Process, wakeUp: WakeUp): Promise<RunResult> {
    return process.a.runtime.run(wakeUp).then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    )
  }

  /** The run's result, or `'waiting'` once it holds its step open for the user's answer. */
  private async untilSettledOrWaiting(
    process: Process,
    running: Promise<RunResult>,
  ): Promise<RunResult | 'waiting'> {
    let result: RunResult | undefined
    running.then((settled) => {
      result = settled
    })
    for (;;) {
      await Promise.race([running, sleep(USER_WAIT_POLL_MS)])
      if (result) return result
      if (await this.waitsForUser(process)) return 'waiting'
    }
  }

  /** Whether an external loop's permission request (a provider-executed call's approval) is pending. */
  private async waitsForUser(process: Process): Promise<boolean> {
    try {
      const { state } = await process.a.session(this.sessionId).state()
      return state.pendingApprovals.some((approval) =>
        state.tools.some(
          (tool) =>
            tool.providerExecuted === true &&
            tool.toolCallId === approval.toolCallId &&
            tool.generationId === approval.generationId,
        ),
      )
    } catch {
      return false
    }
  }

  private async perform(a: Agent, action: ConversationAction, position: number): Promise<void> {
    if ('wait' in action) {
      // Redone after a crash, a wait ends when it first would have.
      const until = this.waits.get(position) ?? this.clock.time + action.wait
      this.waits.set(position, until)
      this.clock.time = Math.max(this.clock.time, until)
      return
    }
    const session = a.session(this.sessionId)
    // Redone after a crash, an action the log recorded is sent again as it
    // was (a retry); one that never reached it, the user does again on
    // what they now see (an approval asked again after a takeover).
    const before = this.sent.get(position)
    const recorded =
      before?.[0] !== undefined &&
      (await this.store.read(this.sessionId)).some((event) => event.id === before[0]?.id)
    const batch = recorded && before ? before : inputsOf(action, position, await session.state())
    this.sent.set(position, batch)
    if (batch.length > 0) await session.append(...batch)
  }

  /**
   * Waits for `work` of `first` (its settling, or a user's request it
   * serves); should it freeze meanwhile, its claims run out and the message
   * it holds comes back, a second process takes over (`redo`: it settles,
   * or serves the user's request sent again) and settles, then the first
   * thaws and goes on beside it with what it knew. Resolves to the process
   * the conversation goes on with.
   */
  private async beside(
    first: Process,
    work: Promise<void>,
    redo: (second: Process) => Promise<void>,
  ): Promise<Process> {
    if (!this.freeze || this.frozen !== undefined) {
      await work
      return first
    }
    const working = work.then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
    const result = await Promise.race([working, first.points.froze.then(() => 'frozen' as const)])
    if (result !== 'frozen') {
      if (result) throw result.error
      return first
    }
    this.frozen = first.points.frozenAt
    this.clock.time += CLAIM_TTL_MS + 1
    if (first.current) this.queue.unshift(first.current)
    // It thaws once the takeover has settled, and writes on with what it
    // knew. (Thawing it mid-takeover needs live claims beside the kit's
    // time jumps: a held claim's owner is taken for dead, its claim expired.)
    const second = this.start()
    this.queue.push({ sessionId: this.sessionId, lane: 'admission', key: RECOVER_KEY })
    await redo(second)
    await this.settle(second)
    first.points.thaw()
    // What the thawed process does is its own: its writes may fail (fenced
    // out, a life it no longer knows), as a real container's would.
    await working
    this.labels.push(...first.points.labels)
    this.dead.push(first.a)
    await this.settle(second)
    return second
  }

  /** Plays every action, each once the session has nothing left to do; one crash at most, then recovery. */
  async play(crashAt: number | undefined): Promise<CrashRun> {
    let process = this.start(crashAt, this.freeze)
    let crash: CrashError | undefined
    let position = 0
    const { conversation } = this.options
    for (;;) {
      try {
        process = await this.beside(process, this.settle(process), (second) => this.settle(second))
        if (position === conversation.length) break
        const action = conversation[position] as ConversationAction
        const serving = process
        serving.current = undefined
        process = await this.beside(serving, this.perform(serving.a, action, position), (second) =>
          // The user's request hangs on a frozen server: they send it again.
          this.perform(second.a, action, position),
        )
        if (process.points.crashed) throw process.points.crashed
        position++
      } catch (error) {
        if (!(error instanceof CrashError) || crash) throw error
        crash = error
        process = this.recover(process)
      }
    }
    return this.result(process, crash)
  }

  /**
   * The process is gone: nothing of it is cleaned up or flushed. Its
   * claims expire, the queue delivers what it held, and a reader's
   * recovery wake-up (what `fetch` sends) looks for work it left.
   */
  private recover(crashed: Process): Process {
    this.labels.push(...crashed.points.labels)
    this.dead.push(crashed.a)
    this.clock.time += CLAIM_TTL_MS + 1
    const process = this.start()
    this.queue.push({ sessionId: this.sessionId, lane: 'admission', key: RECOVER_KEY })
    return process
  }

  private async result(process: Process, crash: CrashError | undefined): Promise<CrashRun> {
    this.labels.push(...process.points.labels)
    const events = await this.store.read(this.sessionId)
    const { state } = await process.a.session(this.sessionId).state()
    // Only now, with the run checked out: a dead process's timers and
    // in-memory work go with it (any I/O it tried would throw CrashError).
    for (const a of [...this.dead, process.a]) a.runtime.close()
    return {
      labels: this.labels,
      crash,
      frozen: this.frozen,
      events,
      state,
      appended: this.appended,
      effects: Object.fromEntries(
        this.options.effects.map((ledger) => [ledger.name, [...ledger.performed]]),
      ),
      stuck: this.stuck,
    }
  }
}

/** The inputs an action appends, given the session as the user saw it. */
function inputsOf(
  action: Exclude<ConversationAction, { wait: number }>,
  position: number,
  { state, index }: { state: AIState; index: number },
): ControlCommandInput<UIMessage>[] {
  const message = (words: string): UIMessage => ({
    id: `m${position}`,
    role: 'user',
    parts: [{ type: 'text', text: words }],
  })
  if ('user' in action) return inputs.message(message(action.user))
  if ('approve' in action) {
    const pending = state.pendingApprovals[0]
    return pending
      ? inputs.approval(pending, { approved: action.approve, id: `approval-${position}` })
      : []
  }
  if ('stop' in action) {
    return state.active
      ? inputs.stop({ turnId: state.active.turnId, frontier: index, id: `stop-${position}` })
      : []
  }
  // `afterStepOf` names the turn the user saw running: its current step hands over.
  return inputs.steer(message(action.steer), { afterStepOf: state.active?.turnId ?? null })
}
