import type { UseAgentResult } from 'a2-aws/ai/react'
import type { ConnectionProblem } from './connection-problem.ts'

const statusLabel = {
  idle: 'Ready',
  starting: 'Starting',
  streaming: 'Responding',
  waiting: 'Waiting for you',
  paused: 'Paused',
  failed: 'Failed',
  closed: 'Closed',
} as const

/** While the stream is not open, the session's status is not known: say so instead. */
const connectionLabel = {
  connecting: 'Connecting…',
  unreachable: 'Offline: reconnecting…',
  troubled: 'Server error: retrying…',
  refused: 'Refused',
} as const

/**
 * The page's header: the desk's name and the session ID, the Inspect
 * toggle, the session's status (or the connection's, while the stream is
 * not open) and the pause control.
 */
export function TopBar({
  sessionId,
  agent,
  problem,
  inspecting,
  onInspect,
}: {
  sessionId: string
  agent: UseAgentResult
  problem: ConnectionProblem | null
  inspecting: boolean
  onInspect(): void
}) {
  return (
    <header className="topbar">
      <div className="brand">
        <span className="logo" aria-hidden="true">
          a2
        </span>
        <div className="brand-text">
          <h1>Support desk</h1>
          <p className="subtitle">
            Session <code title={sessionId}>{sessionId}</code>
          </p>
        </div>
      </div>
      <div className="topbar-meta">
        <button type="button" className="ghost small" aria-pressed={inspecting} onClick={onInspect}>
          Inspect
        </button>
        {agent.connection === 'open' ? (
          <span className={`pill pill-${agent.status}`} title="Session status">
            {statusLabel[agent.status]}
          </span>
        ) : (
          <span className={`pill pill-${problem ? 'offline' : 'muted'}`} title="Connection">
            {connectionLabel[problem ?? 'connecting']}
          </span>
        )}
        <PauseControl agent={agent} disabled={problem !== null} />
      </div>
    </header>
  )
}

/**
 * Resume while paused; Pause after this turn only while a turn runs (idle,
 * there is no turn to pause after; a failed turn waits for Retry or Stop).
 */
function PauseControl({ agent, disabled }: { agent: UseAgentResult; disabled: boolean }) {
  const { state } = agent
  if (state.inbox.paused)
    return (
      <button
        type="button"
        className="ghost small"
        disabled={disabled}
        onClick={() => void agent.resume()}
      >
        Resume
      </button>
    )
  if (state.active === null || state.active.phase === 'failed') return null
  return (
    <button
      type="button"
      className="ghost small"
      disabled={disabled}
      onClick={() => void agent.pause({ when: 'after-turn' })}
    >
      Pause after this turn
    </button>
  )
}
