import type { AIState } from 'a2-aws/ai'
import type { UseAgentResult } from 'a2-aws/ai/react'
import { useState } from 'react'

type Item = AIState['inbox']['items'][number]

function textOf(item: Item): string {
  return item.message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(' ')
}

/** The messages waiting for the current turn to end, in the order they will run. */
export function QueuePanel({
  items,
  paused,
  queue,
}: {
  items: Item[]
  paused: boolean
  queue: UseAgentResult['queue']
}) {
  return (
    <aside className="queue" aria-labelledby="queue-title">
      <div className="queue-head">
        <h2 id="queue-title">Up next</h2>
        <span className="count">{items.length}</span>
      </div>
      {paused ? <p className="queue-note">Paused: queued messages wait until you resume.</p> : null}
      {items.length === 0 ? (
        <p className="queue-empty">Messages you send while the agent is busy wait here.</p>
      ) : null}
      <ol aria-label="Queued messages">
        {items.map((item) => (
          <QueueItem key={item.id} item={item} queue={queue} />
        ))}
      </ol>
    </aside>
  )
}

function QueueItem({ item, queue }: { item: Item; queue: UseAgentResult['queue'] }) {
  const [editing, setEditing] = useState<string | null>(null)
  const text = textOf(item)

  if (editing !== null)
    return (
      <li className="queue-item editing">
        <textarea
          aria-label="Edit queued message"
          value={editing}
          rows={2}
          onChange={(event) => setEditing(event.currentTarget.value)}
        />
        <div className="buttons">
          <button type="button" className="ghost" onClick={() => setEditing(null)}>
            Cancel
          </button>
          <button
            type="button"
            className="primary small"
            disabled={!editing.trim()}
            onClick={() => {
              void queue.edit({ ...item.message, parts: [{ type: 'text', text: editing.trim() }] })
              setEditing(null)
            }}
          >
            Save
          </button>
        </div>
      </li>
    )

  return (
    <li className="queue-item">
      <p className="queue-text">{text}</p>
      {item.afterStepOf ? (
        <span className="tag" title="The agent takes it once its current step ends">
          steering: next after this step
        </span>
      ) : null}
      <div className="queue-actions">
        <button type="button" className="link" onClick={() => void queue.sendNow(item.id)}>
          Send now
        </button>
        <button
          type="button"
          className="link"
          onClick={() => void queue.move({ inputId: item.id, beforeId: null })}
        >
          Move to end
        </button>
        <button type="button" className="link" onClick={() => setEditing(text)}>
          Edit
        </button>
        <button
          type="button"
          className="link danger-link"
          onClick={() => void queue.remove(item.id)}
        >
          Remove
        </button>
      </div>
    </li>
  )
}
