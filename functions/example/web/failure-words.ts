import type { AIState } from 'a2-aws/ai'

type DeadLetter = AIState['deadLetters'][number]

/**
 * What a lane's given-up work means to the person chatting, and what
 * happens next where the runtime promises it (docs/operations.md, what a
 * dead letter means). Lanes, keys and raw errors are the inspector's.
 */
const laneWords: Record<string, { failed: string; next?: string }> = {
  generation: { failed: 'The answer could not be generated.', next: 'Retry to try again.' },
  tools: {
    failed: 'A tool the agent called could not run.',
    next: 'The agent was told it failed.',
  },
  metadata: {
    failed: "Looking up the model's limits failed.",
    next: 'The conversation carries on without them.',
  },
  admission: { failed: 'The desk could not handle your latest request.' },
  handlers: { failed: "One of the desk's background tasks failed." },
}

/**
 * A dead letter in a user's words.
 *
 * @example
 * failureWords({ lane: 'metadata', error: 'ECONNRESET', attempts: 5, index: 9 })
 * // "Looking up the model's limits failed. The conversation carries on without them."
 */
export function failureWords(letter: DeadLetter): string {
  const words = laneWords[letter.lane] ?? { failed: 'Some background work failed.' }
  return words.next ? `${words.failed} ${words.next}` : words.failed
}

/**
 * The same dead letter as the server recorded it, for developers: the lane,
 * the work's key, the last error, the attempts and where it is in the log.
 */
export function failureDetail(letter: DeadLetter): string {
  const key = letter.key ? ` (${letter.key})` : ''
  const attempts = `${letter.attempts} ${letter.attempts === 1 ? 'attempt' : 'attempts'}`
  return `#${letter.index} ${letter.lane} lane${key} after ${attempts}: ${letter.error}`
}
