import type { UIMessage } from 'ai'
import type { Agent } from '../../agent/wiring/agent.ts'
import type { EventInput } from '../../log/event.ts'
import { DEFAULT_SNAPSHOT_EVERY as SNAPSHOT_EVERY } from '../../log/event-log.ts'
import { messageOf } from '../../log/message-of.ts'
import type { StateSnapshot } from '../../log/reducer.ts'
import { inputs } from '../../model/inputs/inputs.ts'
import type { AIState, PendingApproval, PendingInput } from '../../model/state/ai-state.ts'
import type { Random } from './random.ts'
import { type ProcessPool, withTimeout } from './sim-process.ts'
import {
  actMove,
  freshProgress,
  queueEditMove,
  queueMove,
  reorderMove,
  type TurnPoll,
  turnIds,
  type UserMove,
} from './user-turn-moves.ts'
import type { SessionPlan, TurnPlan } from './workload.ts'
import { turnText } from './workload-agent.ts'
import type { World } from './world.ts'

/** An HTTP request's time before the client gives up on it (and sends it again). */
const REQUEST_TIMEOUT_MS = 15_000
const REQUEST_ATTEMPTS = 6
/** How long a turn may take before the user (and the run) calls it stuck. */
const TURN_TIMEOUT_MS = 45 * 60_000
/** How long a sandbox serves nothing before Lambda reclaims it (at a long session's break). */
const IDLE_RECLAIM_MS = 10 * 60_000

/** What a user saw of their session: for the checks. */
export interface UserRecord {
  sessionId: string
  /** Approvals the user answered `approved: true` (each answer's command ID). */
  approvals: string[]
  /** What went wrong while playing (a turn that never ended). */
  problems: string[]
  /** Commands the log accepted (an append returned them), by ID. */
  accepted: string[]
  erased: boolean
  /** Requests that never got an answer, after every retry. */
  abandoned: number
  /** The lives the user played the session in (erased and started over between them). */
  lives: number
  /**
   * Commands sent with no life to name (a session's first) whose request
   * went unanswered at least once: one a stalled server holds may land
   * after an erase and start the session over (what no caller can name a
   * life against; see docs/testing.md).
   */
  unnamed: string[]
  /**
   * Inputs the user put before others (`queue.move`; a steer while others
   * wait, which goes first when it steers): once applied, `first` runs
   * before `before`.
   */
  orders: { commandId: string; first: string; before: string; steers?: boolean }[]
  /** Inputs the user sent now (`queue.sendNow`): once applied, each runs. */
  sentNow: { commandId: string; inputId: string }[]
}

export interface UserContext {
  world: World
  pool: ProcessPool
  random: Random
  /** What the user says to start a turn (default: `turnText()`, what the workload's model reads). */
  say?: (sessionId: string, turn: number, kind: string) => string
  /** Sessions whose user stepped away, until they are back: their page is closed meanwhile. */
  away?: Map<string, Promise<void>>
}

/**
 * A session's user, as the plan says: each turn's message, then what the
 * turn asks of them (approvals answered late or twice, Stop, Pause now or
 * after the turn and Resume, steering, a queued message edited or removed,
 * a retry of a failed turn), looking at the state now and then as a page
 * would, through whichever process the load balancer picks. A request that
 * fails or never answers (its process died) is sent again with the same
 * IDs, as the client does.
 */
export async function playSession(context: UserContext, plan: SessionPlan): Promise<UserRecord> {
  const record = emptyRecord(plan.sessionId)
  const user = new User(context, plan.sessionId, record)
  await context.world.sleep(undefined, plan.startMs)
  let played: TurnPlan | undefined
  let away = false
  for (const [index, turn] of plan.turns.entries()) {
    if (index === plan.restartAt) {
      if (!(await user.settle(plan.turns[index - 1]))) {
        record.problems.push(`the session did not settle within ${TURN_TIMEOUT_MS} ms, to erase`)
        return record
      }
      // Starting over: what the user knew of the old life is gone with it.
      if (await user.erase()) user.startOver()
    }
    if (plan.long && index >= plan.long.from) {
      // A long session: one turn after its breaks, it is done.
      if (away) break
      if (user.head >= SNAPSHOT_EVERY) {
        away = true
        for (const ms of plan.long.awayMs) {
          if (!(await user.settle(played))) {
            record.problems.push(
              `the session did not settle within ${TURN_TIMEOUT_MS} ms, to leave`,
            )
            return record
          }
          await user.stepAway(ms, IDLE_RECLAIM_MS)
        }
      }
    }
    const ended = await user.playTurn(index, turn)
    played = turn
    if (!ended) {
      record.problems.push(`turn ${index} (${turn.kind}) did not end within ${TURN_TIMEOUT_MS} ms`)
      return record
    }
  }
  if (!(await user.settle(played))) {
    record.problems.push(`the session did not settle within ${TURN_TIMEOUT_MS} ms of its last turn`)
    return record
  }
  if (plan.erase && (await user.erase())) record.erased = true
  return record
}

class User {
  private readonly context: UserContext
  private readonly sessionId: string
  private readonly record: UserRecord

  constructor(context: UserContext, sessionId: string, record: UserRecord) {
    this.context = context
    this.sessionId = sessionId
    this.record = record
  }

  private say(what: string): void {
    this.context.world.log(`user ${this.sessionId}`, what)
  }

  /** A request through some live process, sent again on failure; undefined once it gives up. */
  private async request<T>(
    what: string,
    send: (agent: Agent) => Promise<T>,
  ): Promise<T | undefined> {
    const { world, pool, random } = this.context
    for (let attempt = 1; attempt <= REQUEST_ATTEMPTS; attempt++) {
      const process = pool.any()
      if (process) {
        try {
          return await withTimeout(world, send(process.agent), REQUEST_TIMEOUT_MS)
        } catch (error) {
          this.say(`${what} failed (attempt ${attempt}): ${messageOf(error)}`)
          if (isRefusal(error)) return undefined
        }
      }
      await world.sleep(undefined, random.between(200, 2_000) * attempt)
    }
    this.record.abandoned++
    return undefined
  }

  private async append(what: string, events: EventInput[]): Promise<boolean> {
    this.say(what)
    // A command names the life the user knows (as a page does, from its
    // stream): one a stalled server delivers after an erase fails there.
    const life = this.life
    let tries = 0
    const stored = await this.request(what, (agent) => {
      if (tries++ > 0 && life === undefined)
        this.record.unnamed.push(...events.flatMap((event) => (event.id ? [event.id] : [])))
      return agent.session(this.sessionId, life === undefined ? {} : { life }).append(...events)
    })
    if (stored === undefined && life === undefined && tries > 0)
      this.record.unnamed.push(...events.flatMap((event) => (event.id ? [event.id] : [])))
    if (stored === undefined) return false
    this.life ??= stored[0]?.life
    for (const event of events) if (event.id) this.record.accepted.push(event.id)
    return true
  }

  private async state(): Promise<StateSnapshot<AIState> | undefined> {
    const snapshot = (await this.request('state', (agent) =>
      agent.session(this.sessionId).state(),
    )) as StateSnapshot<AIState> | undefined
    if (snapshot?.life !== undefined) this.life ??= snapshot.life
    if (snapshot) this.head = snapshot.index
    return snapshot
  }

  private message(id: string, content: string): UIMessage {
    return { id, role: 'user', parts: [{ type: 'text', text: content }] }
  }

  /** A Pause the user sent and has not resumed yet: they resume once the state shows it. */
  private pausedAt: { id: string; lateMs: number } | undefined
  /**
   * A Pause whose every request went unanswered (its servers froze or
   * died): it may still land, late, and the user resumes what they then
   * see paused, as they would on the page.
   */
  private unansweredPause: { lateMs: number } | undefined

  /** Sends a Pause; one never answered is not waited on, but resumed should it land. */
  private async pause(events: EventInput[], what: string): Promise<void> {
    if (await this.append(what, events)) return
    this.unansweredPause = this.pausedAt && { lateMs: this.pausedAt.lateMs }
    this.pausedAt = undefined
  }
  private resumes = 0
  private retryCount = 0
  /** Answers on their way (late, or a second one): the user is not done before they land. */
  private answering = 0
  private readonly stopped = new Set<string>()
  /** The log's index as the user last saw it. */
  head = 0
  /** The session's life as the user last saw it (undefined before the first event, and after an erase). */
  private life: string | undefined
  private readonly answered = new Set<string>()
  private retries = new Map<string, number>()

  /**
   * What the user does whatever the turn: answers each new approval (late,
   * maybe twice), resumes a session they paused, retries a failed turn (or
   * leaves it failed). True when the session is quiet: no turn but a failed
   * one left failed, nothing queued but behind it, no approval waiting.
   */
  private async tend(
    snapshot: StateSnapshot<AIState>,
    turn: TurnPlan,
    id: string,
    moveOn: boolean,
  ): Promise<boolean> {
    const { world } = this.context
    const { state } = snapshot
    const active = state.active
    for (const pending of state.pendingApprovals) {
      if (this.answered.has(pending.approvalId)) continue
      this.answered.add(pending.approvalId)
      this.answering++
      void this.answer(pending, id, turn).finally(() => this.answering--)
    }
    const asked = state.pendingInputs.filter((pending) => pending.status === 'pending')
    for (const pending of asked) {
      if (this.answered.has(pending.inputRequestId)) continue
      this.answered.add(pending.inputRequestId)
      this.answering++
      void this.answerInput(pending, id, turn).finally(() => this.answering--)
    }
    const paused = active?.phase === 'paused' || (state.inbox.paused && active === null)
    const pausedBy = this.pausedAt ?? this.unansweredPause
    if (pausedBy && paused) {
      const { lateMs } = pausedBy
      this.pausedAt = undefined
      this.unansweredPause = undefined
      await world.sleep(undefined, lateMs)
      await this.append(
        'resume',
        inputs.resume({ id: `${this.sessionId}-resume-${this.resumes++}` }),
      )
      return false
    }
    if (active?.phase === 'failed') {
      const tried = this.retries.get(active.turnId) ?? 0
      if (turn.retry && tried < 2) {
        this.retries.set(active.turnId, tried + 1)
        await this.append(
          'retry',
          inputs.retry({
            turnId: active.turnId,
            retryId: `${this.sessionId}-retry-${this.retryCount++}`,
          }),
        )
        return false
      }
      // A failed turn left failed has ended (with its reason); what queued
      // behind it waits on it, so a user with more to say stops it first.
      if (moveOn && !this.stopped.has(active.turnId)) {
        this.stopped.add(active.turnId)
        await this.append(
          'stop the failed turn',
          inputs.stop({
            turnId: active.turnId,
            frontier: snapshot.index,
            id: `${this.sessionId}-stop-failed-${this.stopped.size}`,
          }),
        )
        return false
      }
      return this.answering === 0 && state.pendingApprovals.length === 0 && asked.length === 0
    }
    return (
      this.answering === 0 &&
      active === null &&
      state.inbox.items.length === 0 &&
      !state.inbox.paused &&
      state.pendingApprovals.length === 0 &&
      asked.length === 0 &&
      this.pausedAt === undefined
    )
  }

  async playTurn(index: number, turn: TurnPlan): Promise<boolean> {
    const { world, random } = this.context
    const ids = turnIds(this.sessionId, index)
    const { id } = ids
    if (turn.kind === 'passive') {
      await this.append(
        'passive message',
        inputs.message(this.message(`${id}-p`, 'A note.'), { generate: false }),
      )
    }
    await this.append(
      `message t${index} ${turn.kind}`,
      inputs.message(
        this.message(id, (this.context.say ?? turnText)(this.sessionId, index, turn.kind)),
      ),
    )
    const sentAt = world.time
    const progress = freshProgress()
    while (world.time - sentAt < TURN_TIMEOUT_MS) {
      await world.sleep(undefined, random.between(100, 1_500))
      const snapshot = await this.state()
      if (!snapshot) continue
      const poll: TurnPoll = { turn, snapshot, late: world.time - sentAt >= turn.lateMs }
      // Each move is chosen after the one before it was sent, as the user
      // would: on the same look at the state, with what they did so far.
      const queueing = queueMove(ids, poll, progress)
      if (queueing) await this.append(queueing.what, queueing.events)
      const editing = queueEditMove(ids, poll, progress)
      if (editing) await this.append(editing.what, editing.events)
      const reordering = reorderMove(ids, poll, progress)
      if (reordering) {
        await this.append(reordering.what, reordering.events)
        this.recordMove(reordering)
      }
      const acting = actMove(ids, poll, progress)
      if (acting?.pausedAt) {
        this.pausedAt = acting.pausedAt
        await this.pause(acting.events, acting.what)
      } else if (acting) {
        await this.append(acting.what, acting.events)
        this.recordMove(acting)
      }
      const quiet = await this.tend(snapshot, turn, id, true)
      if (quiet && snapshot.state.messages.some((message) => message.id === id)) return true
    }
    return false
  }

  /** What the record keeps of a move the user sent: the order it asked for, an input sent now. */
  private recordMove(move: UserMove): void {
    if (move.order) this.record.orders.push(move.order)
    if (move.sentNow) this.record.sentNow.push(move.sentNow)
  }

  /** After the last turn: the user stays until the session is quiet (reminders arrive, approvals wait). */
  async settle(turn: TurnPlan | undefined): Promise<boolean> {
    const { world, random } = this.context
    const since = world.time
    const policy: TurnPlan = turn ?? {
      kind: 'text',
      lateMs: 500,
      approve: true,
      answerTwice: false,
      retry: false,
      queueEdit: 'none',
      delayMs: 0,
    }
    while (world.time - since < TURN_TIMEOUT_MS) {
      await world.sleep(undefined, random.between(500, 3_000))
      const snapshot = await this.state()
      if (snapshot && (await this.tend(snapshot, policy, `${this.sessionId}-end`, false)))
        return true
    }
    return false
  }

  private async answer(pending: PendingApproval, id: string, turn: TurnPlan): Promise<void> {
    const { world } = this.context
    await world.sleep(undefined, turn.lateMs)
    const answerId = `${id}-answer-${pending.approvalId}`
    const landed = await this.append(
      `answer ${pending.approvalId} ${turn.approve ? 'yes' : 'no'}`,
      inputs.approval(pending, { approved: turn.approve, id: answerId }),
    )
    if (landed && turn.approve) this.record.approvals.push(answerId)
    if (turn.answerTwice) {
      await world.sleep(undefined, turn.lateMs)
      const again = `${answerId}-again`
      const twice = await this.append(
        `answer ${pending.approvalId} again, ${turn.approve ? 'no' : 'yes'}`,
        inputs.approval(pending, { approved: !turn.approve, id: again }),
      )
      if (twice && !turn.approve) this.record.approvals.push(again)
    }
  }

  /** Answers an input request late, and maybe once more (the second is refused as stale). */
  private async answerInput(pending: PendingInput, id: string, turn: TurnPlan): Promise<void> {
    const { world } = this.context
    await world.sleep(undefined, turn.lateMs)
    const answerId = `${id}-input-${pending.inputRequestId}`
    await this.append(
      `answer input ${pending.inputRequestId}`,
      inputs.input(pending, { city: 'Berlin' }, { id: answerId }),
    )
    if (turn.answerTwice) {
      await world.sleep(undefined, turn.lateMs)
      await this.append(
        `answer input ${pending.inputRequestId} again`,
        inputs.input(pending, { city: 'Paris' }, { id: `${answerId}-again` }),
      )
    }
  }

  /** Erases the quiet session (true once it is); the user forgets its life. */
  async erase(): Promise<boolean> {
    const { world, random } = this.context
    for (let attempt = 0; attempt < 5; attempt++) {
      await world.sleep(undefined, random.between(500, 5_000))
      this.say('erase')
      // The life the user means: a request a stalled server delivers late erases nothing of the next.
      const life = this.life
      const receipt = await this.request('erase', (agent) =>
        agent.session(this.sessionId, life === undefined ? {} : { life }).erase(),
      )
      if (receipt) {
        this.life = undefined
        this.say(`erased (${receipt.events} events)`)
        return true
      }
    }
    return false
  }

  /** The user stays away `ms`; meanwhile the pool reclaims the sandboxes idle for `idleMs`. */
  async stepAway(ms: number, idleMs: number): Promise<void> {
    const { world, pool, away } = this.context
    this.say(`steps away for ${ms} ms`)
    const back = world.sleep(undefined, ms)
    away?.set(this.sessionId, back)
    await back
    away?.delete(this.sessionId)
    const reclaimed = pool.reclaimIdle(idleMs)
    this.say(`is back (${reclaimed} idle processes reclaimed)`)
  }

  /** The session's next life: what the checks hold the user to is what they do from here. */
  startOver(): void {
    this.record.lives++
    this.record.accepted = []
    this.record.approvals = []
    this.record.orders = []
    this.record.sentNow = []
    // A new life's approvals, input requests and turns are new, even where
    // their IDs repeat the last life's (they derive from the command IDs,
    // and a stalled server may deliver an old first command into this life):
    // the user answers, stops and retries them again, as a page would.
    this.answered.clear()
    this.stopped.clear()
    this.retries.clear()
    this.say(`starts over (life ${this.record.lives})`)
  }
}

/** An answer a retry cannot change: the request was understood and refused. */
function isRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown })?.code
  return (
    typeof code === 'string' &&
    ['SESSION_ACTIVE', 'INVALID_EVENT', 'PARTIAL_DUPLICATE_BATCH', 'LIFE_ENDED'].includes(code)
  )
}

/** A user's record before they did anything. */
export function emptyRecord(sessionId: string): UserRecord {
  return {
    sessionId,
    approvals: [],
    problems: [],
    accepted: [],
    erased: false,
    abandoned: 0,
    lives: 1,
    unnamed: [],
    orders: [],
    sentNow: [],
  }
}
