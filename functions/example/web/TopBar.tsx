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
  outdated: 'Out of date',
} as const

/** Why the pill says Recovering, for its tooltip. */
const RECOVERING_TITLE =
  "The stream dropped mid-answer and nothing has arrived since: if the server restarted, another worker takes the turn over once the old one's claim lapses (about 10 s on npm run local, 30 s deployed)"

/**
 * The page's header: the desk's name and the session ID, the Inspect
 * toggle, the session's status (or the connection's, while the stream is
 * not open; Recovering while a dropped turn has not moved since, see
 * `useRecovering`) and the pause control.
 */
export function TopBar({
  sessionId,
  agent,
  problem,
  recovering,
  inspecting,
  onInspect,
}: {
  sessionId: string
  agent: UseAgentResult
  problem: ConnectionProblem | null
  recovering: boolean
  inspecting: boolean
  onInspect(): void
}) {
  // Out of date is the page's: it shows even while this session's stream is still open.
  const following = agent.connection === 'open' && problem !== 'outdated'
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
        {following && recovering ? (
          <span className="pill pill-streaming" title={RECOVERING_TITLE}>
            Recovering…
          </span>
        ) : following ? (
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
