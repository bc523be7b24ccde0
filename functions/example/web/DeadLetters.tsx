import type { AIState } from 'a2-aws/ai'

/**
 * Work the server set aside after it kept failing (`state.deadLetters`):
 * which lane, which work, the last error. Folded away after the latest one.
 */
export function DeadLetters({ letters }: { letters: AIState['deadLetters'] }) {
  const latest = letters.at(-1)
  if (!latest) return null
  return (
    <details className="dead-letters">
      <summary>
        <span className="dead-letters-title">
          {letters.length === 1
            ? 'Background work failed'
            : `${letters.length} background jobs failed`}
        </span>{' '}
        <span className="dead-letters-latest">{describe(latest)}</span>
      </summary>
      <ul aria-label="Background failures">
        {letters.map((letter) => (
          <li key={letter.index}>
            {describe(letter)}{' '}
            <span className="dead-letters-meta">
              after {letter.attempts} {letter.attempts === 1 ? 'attempt' : 'attempts'}, log index{' '}
              {letter.index}
            </span>
          </li>
        ))}
      </ul>
    </details>
  )
}

function describe(letter: AIState['deadLetters'][number]): string {
  return `${letter.lane} lane${letter.key ? ` (${letter.key})` : ''}: ${letter.error}`
}
