import type { Random } from './random.ts'

/**
 * The kinds of turn a simulated user plays, each reaching a part of the
 * runtime (and of the seeds' rules).
 */
export const TURN_KINDS = [
  /** An answer streamed in chunks. */
  'text',
  /** Two lookups (`call_0`, `call_1`: the IDs every step reuses, as providers do), then an answer. */
  'tools',
  /** A charge through a payment API that deduplicates by `idempotencyKey`: exactly once. */
  'charge',
  /** An email sent inside `ctx.step`, keyed: exactly once. */
  'email',
  /** A shell command under `toolRecovery: 'report'`: at most once. */
  'report',
  /** A tool that needs approval, answered late (approved, denied, or answered twice). */
  'approve',
  /** A tool that sets a timer: the reminder arrives later as a user message. */
  'remind',
  /** The user steers while a slow tool runs. */
  'steer',
  /** The user stops the turn while its step hangs. */
  'stop',
  /** Pause now while the step hangs, then Resume: the step runs again. */
  'pause',
  /** Pause after the turn, then Resume. */
  'pause-after-turn',
  /** A second message sent while the first runs: it waits in the inbox (sometimes edited or removed). */
  'queue',
  /** A passive message (`generate: false`) first, then a generating one. */
  'passive',
  /** A tool asks the user for input (`inputs.requestInput`); they answer late (or twice), and the turn goes on. */
  'ask',
  /** A tool records an app event; the agent's handler ships the order, once per event. */
  'order',
] as const

export type TurnKind = (typeof TURN_KINDS)[number]

/** The turn kinds that need nothing of the agent's tools: what users play with your own agent. */
export const USER_AGENT_TURN_KINDS: readonly TurnKind[] = [
  'text',
  'stop',
  'pause',
  'pause-after-turn',
  'queue',
  'passive',
]

export interface TurnPlan {
  kind: TurnKind
  /** Simulated ms before the user acts (stops, pauses, steers, answers, resumes). */
  lateMs: number
  /** Approve, or deny. */
  approve: boolean
  /** Answer the approval a second time. */
  answerTwice: boolean
  /** Retry a failed turn (up to twice), or leave it failed. */
  retry: boolean
  /** A queued message: `edit` or `remove` it while it waits. */
  queueEdit: 'none' | 'edit' | 'remove'
  /** A reminder's delay (ms). */
  delayMs: number
  /** What the turn combines with its kind (drawn after the rest of the session's plan). */
  twist?: Twist
}

/**
 * What a turn combines with its kind: a control played while a tool (not
 * the model) runs, queued inputs reordered or sent now, an interruption
 * of one owner.
 */
const TWISTS = {
  /** The user queues a message while the lookup runs, then steers: the steer goes before it. */
  'queue-then-steer': ['steer'],
  /** Pause now while the tool runs (the lookup; the 'report' command, made slow), then Resume. */
  'pause-in-tool': ['steer', 'report'],
  /** Stop while the tool runs. */
  'stop-in-tool': ['steer', 'report'],
  /** `inputs.interrupt()` of the running tool call (its owner: the `toolCallId`). */
  'interrupt-tool': ['steer', 'report'],
  /** A message queued while the turn runs, then Send now (`queue.sendNow`): it hands the turn off. */
  'send-now': ['steer', 'queue'],
  /** Two messages queued, the second moved before the first (`queue.move`): they run in that order. */
  move: ['queue'],
  /** `inputs.interrupt()` of the hanging step (its generation, or its request before it starts), in place of Stop. */
  interrupt: ['stop'],
  /** The model calls a tool at every step: the response ends at the agent's `maxSteps`. */
  'max-steps': ['tools'],
} as const satisfies Record<string, readonly TurnKind[]>

type Twist = keyof typeof TWISTS

/** The twists a kind of turn may have. */
const twistsOf = (kind: TurnKind): Twist[] =>
  (Object.keys(TWISTS) as Twist[]).filter((twist) =>
    (TWISTS[twist] as readonly TurnKind[]).includes(kind),
  )

/** A turn of a kind that has twists gets one this often. */
const TWIST_SHARE = 0.5

export interface SessionPlan {
  sessionId: string
  /** When the user opens the session (simulated ms after the start). */
  startMs: number
  turns: TurnPlan[]
  /** Erase the session once it is quiet. */
  erase: boolean
  /**
   * Before this turn, the user erases the quiet session and starts over
   * under the same ID (a new life), while the processes that served the old
   * one live on with what they remember of it.
   */
  restartAt?: number
  /**
   * A long session: its turns from `from` on are played only until the log
   * passes the snapshot interval (then one more). There the user steps
   * away twice (`awayMs`), once the session is quiet, long enough that the
   * pool reclaims its idle sandboxes: the cold ones that replace them read
   * the session anew, the first writing a reducer snapshot, the next
   * reading it.
   */
  long?: { from: number; awayMs: [number, number] }
}

/** The share of sessions that are long: played past the log's snapshot interval, with breaks. */
const LONG_SESSION_SHARE = 0.1
/** A long session's turns beyond its drawn ones, at most. */
const LONG_SESSION_TURNS = 12

export interface WorkloadOptions {
  sessions: number
  /** Turns per session: between 1 and this. */
  turns: number
  kinds?: readonly TurnKind[]
  /** Users open their sessions within this long of the start (default 3 s). */
  spreadMs?: number
}

/** The sessions of a seed: each from its own stream, so dropping one leaves the others as they were. */
export function planSessions(random: Random, options: WorkloadOptions): SessionPlan[] {
  const kinds = options.kinds ?? TURN_KINDS
  return Array.from({ length: options.sessions }, (_, index) => {
    const next = random.fork(`session ${index}`)
    const count = next.between(1, options.turns)
    const plan: SessionPlan = {
      sessionId: `s${index}`,
      startMs: next.between(0, options.spreadMs ?? 3_000),
      turns: Array.from({ length: count }, () => drawTurn(next, kinds)),
      erase: next.chance(0.15),
    }
    // Drawn after the rest, so the sessions' other draws stay as they were.
    const restarts = next.chance(0.3)
    const restartAt = next.between(1, Math.max(1, count - 1))
    if (restarts && count >= 2) plan.restartAt = restartAt
    // A long session: more turns, played until the log passes the snapshot interval.
    if (next.chance(LONG_SESSION_SHARE)) {
      for (let n = 0; n < LONG_SESSION_TURNS; n++) plan.turns.push(drawTurn(next, kinds))
      plan.long = {
        from: count,
        awayMs: [next.between(15, 40) * 60_000, next.between(15, 40) * 60_000],
      }
    }
    // Twists, last of all: each turn of a kind that has some may get one.
    for (const turn of plan.turns) {
      const twists = twistsOf(turn.kind)
      if (twists.length > 0 && next.chance(TWIST_SHARE)) turn.twist = next.pick(twists)
    }
    return plan
  })
}

/** One turn's plan (its draws in this order: a seed's plan depends on it). */
function drawTurn(next: Random, kinds: readonly TurnKind[]): TurnPlan {
  return {
    kind: next.pick(kinds),
    lateMs: next.between(50, 4_000),
    approve: next.chance(0.7),
    answerTwice: next.chance(0.3),
    retry: next.chance(0.7),
    queueEdit: next.pick(['none', 'edit', 'remove'] as const),
    delayMs: next.between(1_000, 90_000),
  }
}
