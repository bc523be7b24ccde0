import type { UseAgentResult } from 'a2-aws/ai/react'
import { type FormEvent, type KeyboardEvent, useState } from 'react'

/** The message box with Send, Steer, Stop and Retry. */
export function Composer({ agent }: { agent: UseAgentResult }) {
  const { state, status, sendMessage, steer, stop, retry } = agent
  const [draft, setDraft] = useState('')
  const [error, setError] = useState<string | null>(null)
  const busy = state.active !== null
  const closed = status === 'closed'

  async function submit(action: 'send' | 'steer'): Promise<void> {
    const text = draft.trim()
    if (!text) return
    setDraft('')
    setError(null)
    try {
      await (action === 'steer' ? steer(text) : sendMessage(text))
    } catch (cause) {
      setDraft(text)
      setError(cause instanceof Error ? cause.message : String(cause))
    }
  }

  function onSubmit(event: FormEvent<HTMLFormElement>): void {
    event.preventDefault()
    void submit('send')
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>): void {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault()
      void submit('send')
    }
  }

  return (
    <form className="composer" onSubmit={onSubmit}>
      <textarea
        aria-label="Message"
        placeholder={
          busy
            ? 'Type to queue a message, or steer the answer…'
            : 'Ask something, or try “close ticket T-42”'
        }
        rows={2}
        value={draft}
        disabled={closed}
        onChange={(event) => setDraft(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        <span className="hint">
          {busy
            ? 'Send queues it after this turn; Steer redirects the answer now.'
            : 'Enter to send'}
        </span>
        <div className="buttons">
          {status === 'failed' ? (
            <button type="button" className="secondary" onClick={() => void retry()}>
              Retry
            </button>
          ) : null}
          {busy ? (
            <>
              <button type="button" className="danger" onClick={() => void stop()}>
                Stop
              </button>
              <button
                type="button"
                className="secondary"
                disabled={!draft.trim()}
                onClick={() => void submit('steer')}
              >
                Steer
              </button>
            </>
          ) : null}
          <button type="submit" className="primary" disabled={!draft.trim() || closed}>
            Send
          </button>
        </div>
      </div>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  )
}
