// Introduction: "Render the conversation" (the client component)
'use client'
import type { StateSnapshot } from 'a2-aws'
import type { AIState } from 'a2-aws/ai'
import { useAgent } from 'a2-aws/ai/react'
import type { FormEvent } from 'react'
import { useState } from 'react'
import type { assistant } from './assistant.ts'

const indicatorLabel = {
  starting: 'Starting…',
  thinking: 'Thinking…',
  compacting: 'Compacting…',
}

export function Chat({
  sessionId,
  initial,
}: {
  sessionId: string
  initial: StateSnapshot<AIState>
}) {
  const { messages, status, indicator, sendMessage } = useAgent<typeof assistant>({
    api: '/api/agent',
    id: sessionId,
    initial,
  })
  const [draft, setDraft] = useState('')
  const [error, setError] = useState<string | null>(null)

  async function send(event: FormEvent<HTMLFormElement>): Promise<void> {
    event.preventDefault()
    const text = draft.trim()
    if (!text) return
    setDraft('')
    setError(null)
    try {
      await sendMessage(text)
    } catch (cause) {
      setDraft(text)
      setError(cause instanceof Error ? cause.message : String(cause))
    }
  }

  return (
    <main>
      <section aria-label="Conversation">
        {messages.map((message) => (
          <article key={message.id}>
            <strong>{message.role === 'user' ? 'You' : 'Agent'}</strong>
            {message.parts.map((part, index) =>
              part.type === 'text' ? <p key={index}>{part.text}</p> : null,
            )}
          </article>
        ))}
        {indicator ? <p role="status">{indicatorLabel[indicator]}</p> : null}
      </section>

      <form onSubmit={send}>
        <input
          aria-label="Message"
          value={draft}
          onChange={(event) => setDraft(event.currentTarget.value)}
        />
        <button disabled={!draft.trim() || status === 'closed'}>Send</button>
      </form>

      {error ? <p role="alert">{error}</p> : null}
    </main>
  )
}
