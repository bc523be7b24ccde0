import type { AIState } from 'a2-aws/ai'
import { failureWords } from './failure-words.ts'

/**
 * Work the server set aside after it kept failing (`state.deadLetters`), in
 * the words of the person chatting: what failed, and what happens next.
 * Folded away after the latest one. The raw record (lane, key, error) is
 * the inspector's.
 */
export function DeadLetters({ letters }: { letters: AIState['deadLetters'] }) {
  const latest = letters.at(-1)
  if (!latest) return null
  return (
    <details className="dead-letters">
      <summary>
        <span className="dead-letters-title">
          {letters.length === 1 ? 'Problem:' : `${letters.length} problems, the latest:`}
        </span>{' '}
        <span className="dead-letters-latest">{failureWords(latest)}</span>
      </summary>
      <ul aria-label="Background failures">
        {letters.map((letter) => (
          <li key={letter.index}>{failureWords(letter)}</li>
        ))}
      </ul>
    </details>
  )
}
