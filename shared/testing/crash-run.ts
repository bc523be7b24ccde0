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
  let time = Date.UTC(2026, 0, 1)
  const now = () => time
  const store = await options.store(now)
  const queue: WakeUp[] = []
  const timers: Timer[] = []
  const waits = new Map<number, number>()
  /** What each action appended (or was about to), by its position in the conversation. */
  const sent = new Map<number, ControlCommandInput<UIMessage>[]>()
  const appended: { id: string; index: number }[] = []
  const labels: string[] = []
  const stuck: string[] = []
  for (const ledger of options.effects) ledger.reset()
  const sessionId = options.sessionId

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

  function start(crashPoint?: number, freezing = false): Process {
    const points = new CrashPoints(crashPoint, { freeze: freezing })
    const definition = options.agent
    const generation = definition.harness?.generation
    const a = agent({
      ...definition,
      // Each process its own provider connection: a frozen one's open stream holds no other's.
      model: crashingModel(positionalModel(options.model, store, sessionId), points),
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
    return { a, points, waiting: [], heldBehind: [] }
  }

  /**
   * Runs queued wake-ups and due timers until there are none (a process's
   * whole life, if it dies). A run that waits for the user (an external
   * loop's permission request holds its step open) is left running: the
   * process settles with it waiting, the next action answers, and the run
   * is awaited once the queue is empty again.
   */
  async function settle(process: Process): Promise<void> {
    const failures = new Map<string, number>()
    for (let runs = 0; ; runs++) {
      await process.points.stillFrozen()
      if (process.points.crashed) throw process.points.crashed
      if (runs > MAX_WAKE_UPS) {
        stuck.push(`more than ${MAX_WAKE_UPS} wake-ups: a livelock`)
        return
      }
      let wakeUp = queue.shift()
      let running: Promise<RunResult>
      process.current = wakeUp
      if (wakeUp) running = runOf(process, wakeUp)
      else {
        const due = timers.findIndex((timer) => timer.at <= time)
        if (due !== -1) {
          await process.a.runtime.fireTimer(timers[due] as Timer)
          timers.splice(due, 1)
          continue
        }
        const waiting = process.waiting.shift()
        if (!waiting) return
        ;({ wakeUp, running } = waiting)
      }
      const result = await untilSettledOrWaiting(process, running)
      if (result === 'waiting') {
        process.waiting.push({ wakeUp, running })
        // The user's turn, once nothing else is due.
        if (queue.length === 0 && !timers.some((timer) => timer.at <= time)) return
        continue
      }
      if (process.waiting.length === 0) queue.push(...process.heldBehind.splice(0))
      if ('outcome' in result) {
        if (result.outcome.kind !== 'held') continue
        if (process.waiting.length > 0) {
          // Held by this process's own waiting run: after it, not after a lapse.
          process.heldBehind.push(wakeUp)
          continue
        }
        // Held by a dead process until its claim expires: let that time pass.
        time = Math.max(time, result.outcome.retryAt + 1)
        queue.push(wakeUp)
        continue
      }
      if (process.points.crashed) {
        // The queue delivers a message its consumer died holding again.
        queue.unshift(wakeUp)
        throw process.points.crashed
      }
      const group = wakeUpGroup(wakeUp)
      const failed = (failures.get(group) ?? 0) + 1
      failures.set(group, failed)
      if (failed >= MAX_FAILURES) {
        stuck.push(`the ${wakeUp.lane} lane failed ${failed} times: ${messageOf(result.error)}`)
        continue
      }
      queue.push(wakeUp)
    }
  }

  /** A run's outcome or its error, never a rejection (a waiting run may outlive its process). */
  function runOf(process: Process, wakeUp: WakeUp): Promise<RunResult> {
    return process.a.runtime.run(wakeUp).then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    )
  }

  /** The run's result, or `'waiting'` once it holds its step open for the user's answer. */
  async function untilSettledOrWaiting(
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
      if (await waitsForUser(process)) return 'waiting'
    }
  }

  /** Whether an external loop's permission request (a provider-executed call's approval) is pending. */
  async function waitsForUser(process: Process): Promise<boolean> {
    try {
      const { state } = await process.a.session(sessionId).state()
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

  async function perform(a: Agent, action: ConversationAction, position: number): Promise<void> {
    if ('wait' in action) {
      // Redone after a crash, a wait ends when it first would have.
      const until = waits.get(position) ?? time + action.wait
      waits.set(position, until)
      time = Math.max(time, until)
      return
    }
    const session = a.session(sessionId)
    // Redone after a crash, an action the log recorded is sent again as it
    // was (a retry); one that never reached it, the user does again on
    // what they now see (an approval asked again after a takeover).
    const before = sent.get(position)
    const recorded =
      before?.[0] !== undefined &&
      (await store.read(sessionId)).some((event) => event.id === before[0]?.id)
    const batch = recorded && before ? before : inputsOf(action, position, await session.state())
    sent.set(position, batch)
    if (batch.length > 0) await session.append(...batch)
  }

  const dead: Agent[] = []
  let frozen: string | undefined

  /**
   * Waits for `work` of `first` (its settling, or a user's request it
   * serves); should it freeze meanwhile, its claims run out and the message
   * it holds comes back, a second process takes over (`redo`: it settles,
   * or serves the user's request sent again) and settles, then the first
   * thaws and goes on beside it with what it knew. Resolves to the process
   * the conversation goes on with.
   */
  async function beside(
    first: Process,
    work: Promise<void>,
    redo: (second: Process) => Promise<void>,
  ): Promise<Process> {
    if (!freeze || frozen !== undefined) {
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
    frozen = first.points.frozenAt
    time += CLAIM_TTL_MS + 1
    if (first.current) queue.unshift(first.current)
    // It thaws once the takeover has settled, and writes on with what it
    // knew. (Thawing it mid-takeover needs live claims beside the kit's
    // time jumps: a held claim's owner is taken for dead, its claim expired.)
    const second = start()
    queue.push({ sessionId, lane: 'admission', key: RECOVER_KEY })
    await redo(second)
    await settle(second)
    first.points.thaw()
    // What the thawed process does is its own: its writes may fail (fenced
    // out, a life it no longer knows), as a real container's would.
    await working
    labels.push(...first.points.labels)
    dead.push(first.a)
    await settle(second)
    return second
  }

  let process = start(crashAt, freeze)
  let crash: CrashError | undefined
  let position = 0
  for (;;) {
    try {
      process = await beside(process, settle(process), (second) => settle(second))
      if (position === options.conversation.length) break
      const action = options.conversation[position] as ConversationAction
      const serving = process
      serving.current = undefined
      process = await beside(serving, perform(serving.a, action, position), (second) =>
        // The user's request hangs on a frozen server: they send it again.
        perform(second.a, action, position),
      )
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
    frozen,
    events,
    state,
    appended,
    effects: Object.fromEntries(
      options.effects.map((ledger) => [ledger.name, [...ledger.performed]]),
    ),
    stuck,
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
