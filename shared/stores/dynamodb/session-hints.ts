/**
 * What one store instance last saw of a session, in one of its lives. Only
 * a hint: every write built on it is conditioned on the life it names (the
 * head item's `life`), so a hint of an ended life costs a cancelled write
 * and a read, never a write in another life.
 */
interface SessionHint {
  /** The session's life the instance saw (`StoredEvent.life`). */
  readonly life: string
  /** The log's last index the instance saw in that life: the log reaches at least this far. */
  readonly last: number
  /** The index the session's head item held when the instance last saw it (at most `last`). */
  readonly headItem?: number
  /**
   * When (the instance's clock, epoch ms) it last committed a write in this
   * life: what lets a step's progress go as a lone `PutItem` (see
   * `PROGRESS_LEASE_MS`). Never set by a read.
   */
  readonly wroteAt?: number
}

/**
 * The hints of the `capacity` most recently used sessions. A sighting of
 * another life than the hint's replaces it whole: nothing learned of one life
 * says anything of another.
 */
export interface SessionHints {
  get(sessionId: string): SessionHint | undefined
  /** A read found the log at least at `last` in `life`. */
  sawEvents(sessionId: string, life: string, last: number): void
  /** The head item held `index` in `life`. */
  sawHeadItem(sessionId: string, life: string, index: number): void
  /** This instance committed a write that leaves the log at `last` (and the head item at `headItem`, when it moved it). */
  wrote(
    sessionId: string,
    life: string,
    write: { last: number; headItem?: number; at: number },
  ): void
  forget(sessionId: string): void
}

export function sessionHints(capacity: number): SessionHints {
  const hints = new Map<string, SessionHint>()
  const put = (sessionId: string, hint: SessionHint): void => {
    hints.delete(sessionId)
    hints.set(sessionId, hint)
    if (hints.size > capacity) hints.delete(hints.keys().next().value as string)
  }
  /** The hint of `life`, or a blank one for it. */
  const ofLife = (sessionId: string, life: string): SessionHint => {
    const hint = hints.get(sessionId)
    return hint?.life === life ? hint : { life, last: 0 }
  }
  return {
    get: (sessionId) => hints.get(sessionId),
    sawEvents(sessionId, life, last) {
      const hint = ofLife(sessionId, life)
      put(sessionId, { ...hint, last: Math.max(hint.last, last) })
    },
    sawHeadItem(sessionId, life, index) {
      const hint = ofLife(sessionId, life)
      put(sessionId, { ...hint, last: Math.max(hint.last, index), headItem: index })
    },
    wrote(sessionId, life, { last, headItem, at }) {
      const hint = ofLife(sessionId, life)
      put(sessionId, {
        life,
        last: Math.max(hint.last, last),
        wroteAt: at,
        ...(headItem === undefined
          ? hint.headItem === undefined
            ? {}
            : { headItem: hint.headItem }
          : { headItem }),
      })
    },
    forget: (sessionId) => void hints.delete(sessionId),
  }
}
