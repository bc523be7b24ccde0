// What each session of a soak does, drawn from one seed: the same seed
// plans the same sessions, so a failure reruns from the seed it printed.

/** The kinds of turn a soak session plays, each exercising a part of the runtime. */
const TURN_KINDS = [
  /** An answer, streamed in many chunks. */
  'text',
  /** Two tool calls (`call_0`, `call_1`: the IDs every step reuses), then an answer. */
  'tools',
  /** A tool that needs approval, answered late, approved or denied. */
  'approve',
  /** A tool that sets a timer: its reminder arrives later as a user message. */
  'remind',
  /** A tool with `toolRecovery: 'report'`: it runs at most once. */
  'report',
  /** The user steers while the step's tool runs: the turn hands off to the steering message. */
  'steer',
  /** The user stops the turn while its step streams. */
  'stop',
  /** Pause now while the step streams, then Resume: the step runs again. */
  'pause',
] as const

export type TurnKind = (typeof TURN_KINDS)[number]

export interface TurnPlan {
  kind: TurnKind
  /** How long the user takes to answer an approval, or to resume (ms). */
  lateMs: number
  /** Approve (true) or deny the approval. */
  approve: boolean
  /** A reminder's delay (ms). */
  delayMs: number
}

export interface SessionPlan {
  sessionId: string
  turns: TurnPlan[]
}

/** mulberry32: a small, fast PRNG whose whole state is one 32-bit seed. */
export function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** The sessions a seed plans: `sessions` of `turns` turns each. */
export function planSessions(seed: number, sessions: number, turns: number): SessionPlan[] {
  return Array.from({ length: sessions }, (_, index) => {
    const next = random(seed * 1_000_003 + index)
    return {
      sessionId: `soak-${seed}-${index}`,
      turns: Array.from({ length: turns }, () => ({
        kind: TURN_KINDS[Math.floor(next() * TURN_KINDS.length)] as TurnKind,
        lateMs: Math.floor(next() * 300),
        approve: next() < 0.7,
        delayMs: 50 + Math.floor(next() * 350),
      })),
    }
  })
}
