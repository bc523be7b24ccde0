import { type AIState, stoppedUnanswered } from 'a2-aws/ai'
import { useAgent } from 'a2-aws/ai/react'
import type { UIMessage } from 'ai'
import { useMemo, useState } from 'react'
import { Approvals } from './Approvals.tsx'
import { Composer } from './Composer.tsx'
import { Conversation, type TurnFailure } from './Conversation.tsx'
import { connectionProblem } from './connection-problem.ts'
import { DeadLetters } from './DeadLetters.tsx'
import { Inspector } from './Inspector.tsx'
import { QueuePanel } from './QueuePanel.tsx'
import { ReloadNotice } from './ReloadNotice.tsx'
import { SessionRefused } from './SessionRefused.tsx'
import { TopBar } from './TopBar.tsx'
import { useRecovering } from './use-recovering.ts'

const indicatorLabel = {
  starting: 'Starting…',
  thinking: 'Thinking…',
  compacting: 'Compacting the conversation…',
} as const

const stageLabel = {
  sending: 'Sending…',
  queued: 'Queued…',
  starting: 'Starting the model…',
  recovering: 'Recovering after an interruption…',
} as const

/**
 * The example support desk: one session, named in the URL, opened with its
 * token. `?inspect` (or the Inspect button) opens the developers' inspector
 * under the chat.
 */
export function App({
  sessionId,
  token,
  inspect = false,
}: {
  sessionId: string
  token?: string
  inspect?: boolean
}) {
  const agent = useAgent({ api: '/api/agent', id: sessionId, ...(token ? { token } : {}) })
  const [inspecting, setInspecting] = useState(inspect)
  const { state, indicator, stage } = agent
  // Before the first token the stage says what the turn waits for; a model
  // at work speaks for the running turn, unless its step is being taken over.
  const working = indicator === 'thinking' || indicator === 'compacting'
  const busy =
    stage && (!working || stage === 'recovering')
      ? stageLabel[stage]
      : indicator
        ? indicatorLabel[indicator]
        : null
  const problem = connectionProblem(agent.connection, agent.error, agent.reload)
  const recovering = useRecovering(agent)
  const stopped = useMemo(() => new Set(state.stoppedResponseIds), [state.stoppedResponseIds])
  const unanswered = useMemo(() => stoppedUnanswered(state), [state])
  const steering = useMemo(() => steeringIds(state), [state])
  const failure: TurnFailure | null =
    state.active?.phase === 'failed'
      ? {
          messageId: state.active.responseMessageId,
          error: state.active.error ?? 'No reason was given.',
        }
      : null

  return (
    <div className="shell">
      <TopBar
        sessionId={sessionId}
        agent={agent}
        problem={problem}
        recovering={recovering}
        inspecting={inspecting}
        onInspect={() => setInspecting((open) => !open)}
      />

      <div className="layout">
        <main className="chat">
          <Conversation
            messages={agent.messages as UIMessage[]}
            stopped={stopped}
            stoppedUnanswered={unanswered}
            steering={steering}
            failure={failure}
          />
          <div className="chat-footer">
            <p className="indicator" role="status" aria-live="polite">
              {busy ? (
                <>
                  <span className="dots" aria-hidden="true">
                    <i />
                    <i />
                    <i />
                  </span>
                  {busy}
                </>
              ) : null}
            </p>
            <DeadLetters letters={state.deadLetters} />
            <Approvals
              approvals={state.pendingApprovals}
              approve={agent.approve}
              deny={agent.deny}
            />
            {problem === 'refused' ? <SessionRefused error={agent.error} /> : null}
            {agent.reload ? <ReloadNotice reason={agent.reload} /> : null}
            <Composer agent={agent} problem={problem} />
          </div>
        </main>
        <QueuePanel items={state.inbox.items} paused={state.inbox.paused} queue={agent.queue} />
      </div>
      {inspecting ? (
        <Inspector
          api="/api/agent"
          sessionId={sessionId}
          {...(token ? { token } : {})}
          live={state}
        />
      ) : null}
    </div>
  )
}

/**
 * User messages shown after the active turn's input: steering (or Send now)
 * that the agent takes once the current model step ends.
 */
function steeringIds(state: AIState): ReadonlySet<string> {
  const active = state.active
  if (!active) return new Set()
  const at = state.messages.findIndex((message) => message.id === active.inputId)
  if (at < 0) return new Set()
  return new Set(
    state.messages
      .slice(at + 1)
      .filter((message) => message.role === 'user' && !active.contextInputIds.includes(message.id))
      .map((message) => message.id),
  )
}
