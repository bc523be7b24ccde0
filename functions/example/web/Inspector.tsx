import type { StoredEvent } from 'a2-aws'
import { type AIState, statesByIndex, type TimelineLine, timeline } from 'a2-aws/ai'
import { useEffect, useMemo, useState } from 'react'
import { failureDetail } from './failure-words.ts'

/**
 * For developers: the session's log under a slider. Each position is a log
 * index; the panel shows the event there and the state the reducer folds up
 * to it (the same fold the agent and this page run). It reads the stored
 * events from the endpoint's read-only `?events` answer, again whenever the
 * live state moves, and follows the head unless the slider was moved back.
 */
export function Inspector({
  api,
  sessionId,
  token,
  live,
}: {
  api: string
  sessionId: string
  /** The session's token: the reads are checked like the stream. */
  token?: string
  live: unknown
}) {
  const [events, setEvents] = useState<StoredEvent[]>([])
  const [error, setError] = useState<string | null>(null)
  const [cursor, setCursor] = useState<number | null>(null)

  // `live` changes with every event the page folds: read the log again then.
  // biome-ignore lint/correctness/useExhaustiveDependencies: `live` is the trigger
  useEffect(() => {
    const controller = new AbortController()
    const timer = setTimeout(() => {
      const url = `${api}?sessionId=${encodeURIComponent(sessionId)}&events`
      const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {}
      fetch(url, { signal: controller.signal, headers })
        .then(async (response) => {
          const body = (await response.json()) as {
            events?: StoredEvent[]
            error?: { message: string }
          }
          if (!response.ok || !body.events)
            throw new Error(body.error?.message ?? response.statusText)
          setEvents(body.events)
          setError(null)
        })
        .catch((reason: unknown) => {
          if (!controller.signal.aborted) setError(String((reason as Error).message ?? reason))
        })
    }, 100)
    return () => {
      clearTimeout(timer)
      controller.abort()
    }
  }, [api, sessionId, live])

  const head = events.at(-1)?.index ?? 0
  const states = useMemo(() => statesByIndex(events), [events])
  const lines = useMemo(() => timeline(events), [events])
  const index = cursor === null ? head : Math.min(cursor, head)
  const event = events.find((candidate) => candidate.index === index)
  const line = lines.find(
    (candidate) =>
      candidate.index === index ||
      (candidate.lastIndex !== undefined &&
        candidate.index <= index &&
        index <= candidate.lastIndex),
  )
  const state = states[index] as AIState | undefined

  return (
    <section className="inspector" aria-label="Inspector">
      <header className="inspector-head">
        <h2>Inspector</h2>
        <label className="inspector-slider">
          <span>
            Log index <output aria-label="Index">{index}</output> of {head}
            {cursor === null ? ' (following)' : ''}
          </span>
          <input
            type="range"
            aria-label="Log index"
            min={0}
            max={head}
            value={index}
            onChange={(change) => {
              const next = Number(change.target.value)
              setCursor(next >= head ? null : next)
            }}
          />
        </label>
      </header>
      {error ? (
        <p className="error" role="alert">
          Cannot read the log: {error}
        </p>
      ) : null}
      <div className="inspector-body">
        <section className="inspector-event" aria-label="Event at index">
          <h3>Event</h3>
          {event ? <EventView event={event} line={line} /> : <p>Index 0: before any event.</p>}
        </section>
        <section className="inspector-state" aria-label="State at index">
          <h3>State</h3>
          {state ? (
            <>
              <p className="inspector-facts">
                {state.active ? `turn ${state.active.phase}` : 'no active turn'} ·{' '}
                {state.messages.length} messages · {state.inbox.items.length} queued ·{' '}
                {state.pendingApprovals.length} approvals · {state.deadLetters.length} dead letters
              </p>
              {state.deadLetters.length > 0 ? (
                <ul className="inspector-dead-letters" aria-label="Dead letters">
                  {state.deadLetters.map((letter) => (
                    <li key={letter.index}>{failureDetail(letter)}</li>
                  ))}
                </ul>
              ) : null}
              <pre>{JSON.stringify(state, null, 2)}</pre>
            </>
          ) : null}
        </section>
      </div>
    </section>
  )
}

function EventView({ event, line }: { event: StoredEvent; line: TimelineLine | undefined }) {
  return (
    <>
      <p className="inspector-line">
        <code>#{event.index}</code> <strong>{event.type}</strong>{' '}
        <span className="inspector-meta">
          {line?.author ?? ''} · {new Date(event.timestamp).toISOString().slice(11, 23)}
        </span>
      </p>
      {line ? <p className="inspector-summary">{line.summary}</p> : null}
      <pre>{JSON.stringify(event.payload, null, 2)}</pre>
    </>
  )
}
