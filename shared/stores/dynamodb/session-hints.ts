/**
 * What one store instance last saw of each session, as a number (the log's
 * last index, or the index its head item holds), for the most recent
 * `capacity` sessions. Only hints: a wrong one costs a cancelled write or
 * one more read, never a wrong write, since every write is conditioned on
 * what it assumes.
 */
export interface SessionHints {
  get(sessionId: string): number | undefined
  set(sessionId: string, value: number): void
  /** Keeps the larger of what it knew and `value`. */
  raise(sessionId: string, value: number): void
  delete(sessionId: string): void
}

export function sessionHints(capacity: number): SessionHints {
  const values = new Map<string, number>()
  const set = (sessionId: string, value: number): void => {
    values.delete(sessionId)
    values.set(sessionId, value)
    if (values.size > capacity) values.delete(values.keys().next().value as string)
  }
  return {
    get: (sessionId) => values.get(sessionId),
    set,
    raise(sessionId, value) {
      set(sessionId, Math.max(values.get(sessionId) ?? value, value))
    },
    delete: (sessionId) => void values.delete(sessionId),
  }
}
