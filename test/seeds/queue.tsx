// Conversations: "Inbox and turn controls"
'use client'
import { useAgent } from 'a2-aws/ai/react'
import type { assistant } from './assistant.ts'

export function Queue({ sessionId }: { sessionId: string }) {
  const { state, queue, steer, pause, resume } = useAgent<typeof assistant>({
    api: '/api/agent',
    id: sessionId,
  })

  return (
    <section>
      <ol aria-label="Queued messages">
        {state.inbox.items.map((item) => (
          <li key={item.id}>
            {item.message.parts.map((part, index) =>
              part.type === 'text' ? <span key={index}>{part.text}</span> : null,
            )}
            <button onClick={() => void queue.sendNow(item.id)}>Send now</button>
            <button onClick={() => void queue.move({ inputId: item.id, beforeId: null })}>
              Move to end
            </button>
            <button onClick={() => void queue.remove(item.id)}>Remove</button>
          </li>
        ))}
      </ol>
      <button onClick={() => void steer('Check the billing service first.')}>Steer</button>
      {state.inbox.paused ? (
        <button onClick={() => void resume()}>Resume</button>
      ) : (
        <button onClick={() => void pause({ when: 'after-turn' })}>Pause after this turn</button>
      )}
    </section>
  )
}
