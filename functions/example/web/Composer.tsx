import type { UseAgentResult } from 'a2-aws/ai/react'
import { type FormEvent, type KeyboardEvent, useState } from 'react'
import type { ConnectionProblem } from './connection-problem.ts'

/**
 * While the session cannot be followed, what becomes of a message: nothing
 * is sent or queued; Send is held, and the draft stays for when it is back.
 */
const problemHint: Record<ConnectionProblem, string> = {
  unreachable:
    'The server cannot be reached: Send is held until it is back, and your message stays here.',
  troubled:
    'The server is having trouble: Send is held until it recovers, and your message stays here.',
  refused: 'This conversation cannot go on from this link: start a new one.',
  outdated: 'This page is out of date: reload it to go on, and your conversation comes back.',
}

/** What Send (and Steer, Stop) will do now, so the hint is true in every state. */
function hintFor(problem: ConnectionProblem | null, busy: boolean, paused: boolean): string {
  if (problem) return problemHint[problem]
  // Paused, nothing is admitted: a steer ends the turn after its step, then waits too.
  if (paused)
    return busy
      ? 'Paused after this turn: messages wait until you resume. Stop ends the turn now.'
      : 'Paused: messages wait until you resume.'
  return busy
    ? 'Send queues it for after this turn. Steer hands it over after the current step; Stop ends the turn now.'
    : 'Enter to send'
}

/**
 * The message box with Send, Steer, Stop and Retry. While the session
 * cannot be followed (`problem`) the buttons wait (the draft can still be
 * written), and the hint says why.
 */
export function Composer({
  agent,
  problem,
}: {
  agent: UseAgentResult
  problem: ConnectionProblem | null
}) {
  const { state, status, sendMessage, steer, stop, retry } = agent
  const [draft, setDraft] = useState('')
  const [error, setError] = useState<string | null>(null)
  const offline = problem !== null
  const busy = state.active !== null
  const closed = status === 'closed'
  const canSend = draft.trim() !== '' && !closed && !offline

  async function submit(action: 'send' | 'steer'): Promise<void> {
    const text = draft.trim()
    if (!text || offline) return
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
    <form className={`composer${offline ? ' composer-offline' : ''}`} onSubmit={onSubmit}>
      <textarea
        aria-label="Message"
        placeholder={
          state.inbox.paused
            ? 'Write a message: it waits until you resume'
            : busy
              ? 'Type to queue a message, or to steer the agent…'
              : 'Ask something, or try “close ticket T-42”'
        }
        rows={2}
        value={draft}
        disabled={closed}
        onChange={(event) => setDraft(event.currentTarget.value)}
        onKeyDown={onKeyDown}
      />
      <div className="composer-actions">
        <span className="hint">{hintFor(problem, busy, state.inbox.paused)}</span>
        <div className="buttons">
          {status === 'failed' ? (
            <button
              type="button"
              className="secondary"
              disabled={offline}
              onClick={() => void retry()}
            >
              Retry
            </button>
          ) : null}
          {busy ? (
            <>
              <button
                type="button"
                className="danger"
                disabled={offline}
                onClick={() => void stop()}
              >
                Stop
              </button>
              <button
                type="button"
                className="steer"
                title="The agent finishes its current step, then answers this instead of going on"
                disabled={!canSend}
                onClick={() => void submit('steer')}
              >
                <span aria-hidden="true">↪ </span>Steer
              </button>
            </>
          ) : null}
          <button type="submit" className="primary" disabled={!canSend}>
            Send
          </button>
        </div>
      </div>
      {/* A refused protocol is the reload notice's to say, once for the page. */}
      {error && problem !== 'outdated' ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </form>
  )
}
