import { useAgent } from 'a2-aws/ai/react'
import { Approvals } from './Approvals.tsx'
import { Composer } from './Composer.tsx'
import { Conversation } from './Conversation.tsx'
import { QueuePanel } from './QueuePanel.tsx'

const indicatorLabel = {
  starting: 'Starting…',
  thinking: 'Thinking…',
  compacting: 'Compacting the conversation…',
} as const

const statusLabel = {
  idle: 'Ready',
  starting: 'Starting',
  streaming: 'Responding',
  waiting: 'Waiting for you',
  paused: 'Paused',
  failed: 'Failed',
  closed: 'Closed',
} as const

/** The example support desk: one session, named in the URL. */
export function App({ sessionId }: { sessionId: string }) {
  const agent = useAgent({ api: '/api/agent', id: sessionId })
  const { state, status, indicator, connection } = agent

  return (
    <div className="shell">
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            a2
          </span>
          <div>
            <h1>Support desk</h1>
            <p className="subtitle">
              Session <code>{sessionId}</code>
            </p>
          </div>
        </div>
        <div className="topbar-meta">
          <span className={`pill pill-${status}`} title="Session status">
            {statusLabel[status]}
          </span>
          {connection !== 'open' && connection !== 'idle' ? (
            <span className="pill pill-muted">{connection}…</span>
          ) : null}
          {state.inbox.paused ? (
            <button type="button" className="ghost small" onClick={() => void agent.resume()}>
              Resume
            </button>
          ) : (
            <button
              type="button"
              className="ghost small"
              onClick={() => void agent.pause({ when: 'after-turn' })}
            >
              Pause after this turn
            </button>
          )}
        </div>
      </header>

      <div className="layout">
        <main className="chat">
          <Conversation messages={agent.messages} />
          <div className="chat-footer">
            <p className="indicator" role="status" aria-live="polite">
              {indicator ? (
                <>
                  <span className="dots" aria-hidden="true">
                    <i />
                    <i />
                    <i />
                  </span>
                  {indicatorLabel[indicator]}
                </>
              ) : null}
            </p>
            <Approvals
              approvals={state.pendingApprovals}
              approve={agent.approve}
              deny={agent.deny}
            />
            {agent.error && status === 'failed' ? (
              <p className="error" role="alert">
                {agent.error.message}
              </p>
            ) : null}
            <Composer agent={agent} />
          </div>
        </main>
        <QueuePanel items={state.inbox.items} paused={state.inbox.paused} queue={agent.queue} />
      </div>
    </div>
  )
}
