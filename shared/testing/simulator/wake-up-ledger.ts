import type { WakeUp } from '../../runtime/wake-up.ts'

/** Where a queue message came from: a writer's fast path, the stream router, or a recovery. */
export type WakeUpOrigin = 'fast' | 'router' | 'recovery'

/** A wake-up a committed append made due, and who owed it. */
interface Owed {
  owner: number
  wakeUp: WakeUp & { at: { life: string; index: number } }
  time: number
}

/** How late a wake-up may come after its commit when its writer neither froze nor heard a failure. */
const LATE_MS = 2_000

const laneOf = (wakeUp: Pick<WakeUp, 'sessionId' | 'lane' | 'key'>): string =>
  `${wakeUp.sessionId}\u0000${wakeUp.lane}\u0000${wakeUp.key ?? ''}`

/**
 * Every wake-up the routing owed, and whether a writer's fast path gave it
 * (issue 33: "every wake-up that the routing owed was sent; a lost one is a
 * failure even when a backstop later covered it"). Each committed append
 * owes the wake-ups `wakeUpsFor` gives for its events. One is given when a
 * process's dispatcher sends a wake-up of that lane, session and key for
 * that news or later news of the same life (a lane reads the whole state),
 * or when that lane runs for the session, after the commit, on a message a
 * fast path sent. The stream router's copies, a reader's recovery and the
 * runs they start do not count: they are the backstops this ledger looks
 * behind.
 *
 * Given more than `LATE_MS` after its commit is a failure too, unless the
 * writer froze or heard a failure in between.
 *
 * Excused: the writer died after its commit (it had no chance to send),
 * heard its append or its send fail (it cannot know what landed: the
 * router's case, as designed), or the wake-up is for the lane a dead letter
 * gave up on (that write wakes it on purpose not).
 */
export class WakeUpLedger {
  private readonly owed: Owed[] = []
  /** Fast-path sends, by lane: the news each was for, and when. */
  private readonly sends = new Map<string, { life: string; index: number; time: number }[]>()
  /** Runs started on a fast path's message, by lane. */
  private readonly runs = new Map<string, number[]>()
  /** When each process died, heard an append fail, or a send fail. */
  private readonly excuses = new Map<number, number[]>()
  /** When each process froze (what it owed comes when it thaws). */
  private readonly freezes = new Map<number, number[]>()
  /** The latest a given wake-up came after its commit (simulated ms). */
  latestMs = 0

  owe(owner: number, wakeUps: readonly WakeUp[], time: number, deadLettered: ReadonlySet<string>) {
    for (const wakeUp of wakeUps) {
      if (wakeUp.at === undefined || deadLettered.has(wakeUp.lane)) continue
      this.owed.push({ owner, wakeUp: wakeUp as Owed['wakeUp'], time })
    }
  }

  sent(wakeUps: readonly WakeUp[], time: number): void {
    for (const wakeUp of wakeUps) {
      if (wakeUp.at === undefined) continue
      const key = laneOf(wakeUp)
      this.sends.set(key, [...(this.sends.get(key) ?? []), { ...wakeUp.at, time }])
    }
  }

  ran(wakeUp: WakeUp, origin: WakeUpOrigin | undefined, time: number): void {
    if (origin !== 'fast') return
    const key = laneOf(wakeUp)
    this.runs.set(key, [...(this.runs.get(key) ?? []), time])
  }

  /** The process died, or heard an append or a send fail: what it owed since is the router's. */
  excuse(owner: number, time: number): void {
    this.excuses.set(owner, [...(this.excuses.get(owner) ?? []), time])
  }

  /** The process froze: what it owed since may come as late as its thaw. */
  froze(owner: number, time: number): void {
    this.freezes.set(owner, [...(this.freezes.get(owner) ?? []), time])
  }

  /** What the session was owed and never given, or given late, in words. */
  broken(sessionId: string): string[] {
    const broken: string[] = []
    for (const owed of this.owed) {
      if (owed.wakeUp.sessionId !== sessionId) continue
      const given = this.givenAt(owed)
      const { lane, key, at } = owed.wakeUp
      const between = (times: number[] | undefined, until: number) =>
        (times ?? []).some((time) => time >= owed.time && time <= until)
      if (given !== undefined) {
        const late = given - owed.time
        this.latestMs = Math.max(this.latestMs, late)
        // A writer's send follows its commit at once; only a freeze, or a
        // failure it heard (its retry sends), holds it back.
        const held =
          between(this.freezes.get(owed.owner), given) ||
          between(this.excuses.get(owed.owner), given)
        if (late > LATE_MS && !held)
          broken.push(
            `the ${lane}${key === undefined ? '' : ` (${key})`} wake-up for #${at.index} (life ${at.life}), owed by p${owed.owner}'s append at ${new Date(owed.time).toISOString()}, came ${late} ms after its commit`,
          )
        continue
      }
      if ((this.excuses.get(owed.owner) ?? []).some((time) => time >= owed.time)) continue
      broken.push(
        `the ${lane}${key === undefined ? '' : ` (${key})`} wake-up for #${at.index} (life ${at.life}), owed by p${owed.owner}'s append at ${new Date(owed.time).toISOString()}, was never sent by a fast path (a backstop may have covered it)`,
      )
    }
    return broken
  }

  private givenAt(owed: Owed): number | undefined {
    const key = laneOf(owed.wakeUp)
    const { at } = owed.wakeUp
    const sent = (this.sends.get(key) ?? []).find(
      (send) => send.time >= owed.time && send.life === at.life && send.index >= at.index,
    )?.time
    const ran = (this.runs.get(key) ?? []).find((time) => time >= owed.time)
    if (sent === undefined) return ran
    return ran === undefined ? sent : Math.min(sent, ran)
  }
}
