import { AppendConflictError, LifeEndedError } from '../../log/errors.ts'
import type { AppendOptions } from '../../log/event-store.ts'
import { position } from './log-reads.ts'
import type { AppendContext } from './store-context.ts'

/** Where an append's transaction builds on: its base, in which life, and what it knows of the head item. */
export interface Basis {
  base: number
  life: string
  headItem: number
  baseSeen: boolean
}

/** A new life, at index 0: the append creates the session. */
export const creation = ({ newLife }: AppendContext): Basis => ({
  base: 0,
  life: newLife(),
  headItem: 0,
  baseSeen: false,
})

/**
 * Where an append builds on, from what this instance saw of the session in
 * the life it is for; undefined when that needs a read (`endBasis`).
 */
export function basisFromHints(
  context: AppendContext,
  sessionId: string,
  { expectedIndex, life }: AppendOptions,
): Basis | undefined {
  // An empty log starts a life; a life named is never empty (endBasis says which is wrong).
  if (expectedIndex === 0) return life === undefined ? creation(context) : undefined
  const hint = context.hints.get(sessionId)
  const known = hint !== undefined && (life === undefined || hint.life === life) ? hint : undefined
  if (expectedIndex === undefined) {
    if (known) {
      const { last } = known
      return {
        base: last,
        life: known.life,
        headItem: Math.min(known.headItem ?? last, last),
        baseSeen: true,
      }
    }
    return life === undefined ? creation(context) : undefined
  }
  if (known) {
    return {
      base: expectedIndex,
      life: known.life,
      headItem: Math.min(known.headItem ?? expectedIndex, expectedIndex),
      baseSeen: known.last >= expectedIndex,
    }
  }
  return life === undefined
    ? undefined
    : { base: expectedIndex, life, headItem: expectedIndex, baseSeen: false }
}

/** Where the log ends now, read: the basis of an append at the end (or of an expected index, in the life the session is in). */
export async function endBasis(
  context: AppendContext,
  sessionId: string,
  { expectedIndex, life }: AppendOptions,
): Promise<Basis> {
  const at = await position(context, sessionId)
  if (life !== undefined && at?.life !== life) throw new LifeEndedError(sessionId, life, at?.life)
  if (at === undefined) {
    if (expectedIndex !== undefined && expectedIndex > 0)
      throw new AppendConflictError(sessionId, expectedIndex, 0)
    return creation(context)
  }
  const base = expectedIndex ?? at.index
  return {
    base,
    life: at.life,
    headItem: Math.min(at.headItem, base),
    baseSeen: at.index >= base,
  }
}
