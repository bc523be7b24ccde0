import { isCompactionPart } from 'a2-aws/ai'
import type { DynamicToolUIPart, ToolUIPart, UIMessage } from 'ai'
import { Fragment, useEffect, useRef } from 'react'
import { sentByReminder } from '../message-metadata.ts'
import { Markdown } from './Markdown.tsx'
import { ToolValue } from './ToolValue.tsx'

const toolStateLabel: Record<string, string> = {
  'input-streaming': 'Preparing',
  'input-available': 'Running',
  'approval-requested': 'Waiting for approval',
  'approval-responded': 'Answered',
  'output-available': 'Done',
  'output-error': 'Failed',
  'output-denied': 'Denied',
}

const compactionLabel = {
  running: 'Compacting earlier messages…',
  completed: 'Earlier messages were summarized',
  failed: 'Compaction failed; the full history is kept',
  interrupted: 'Compaction was interrupted',
} as const

type ToolPart = ToolUIPart | DynamicToolUIPart

/**
 * Who a message is from, as the page names it: a user message a reminder's
 * timer sent is the reminder's, not "You" (its metadata says so), and its
 * bubble says so in words, not only by the avatar.
 */
type Author = 'You' | 'Reminder' | 'Agent'

const avatarOf: Record<Author, string> = { You: 'You', Reminder: '⏰', Agent: 'AI' }

function authorOf(message: UIMessage): Author {
  if (message.role !== 'user') return 'Agent'
  return sentByReminder(message) ? 'Reminder' : 'You'
}

// Local twins of the AI SDK's helpers, so the page bundles none of its server code.
function isToolPart(part: UIMessage['parts'][number]): part is ToolPart {
  return part.type.startsWith('tool-') || part.type === 'dynamic-tool'
}

function toolName(part: ToolPart): string {
  return part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length)
}

/** Why the active turn failed, shown in its response. */
export interface TurnFailure {
  messageId: string
  error: string
}

/**
 * The transcript: text (the agent's as markdown), tool calls and compaction
 * markers, newest at the bottom. A stopped response says so (and a turn
 * stopped before its response showed anything, after its input), a failed
 * turn shows why in its response, and steering waiting for the current step
 * is tagged.
 */
export function Conversation({
  messages,
  stopped,
  stoppedUnanswered,
  steering,
  failure,
}: {
  messages: UIMessage[]
  /** Responses Stop closed (`state.stoppedResponseIds`). */
  stopped: ReadonlySet<string>
  /** Inputs whose turn Stop ended before anything of its response was left. */
  stoppedUnanswered: ReadonlySet<string>
  steering: ReadonlySet<string>
  failure: TurnFailure | null
}) {
  const end = useRef<HTMLDivElement>(null)
  const last = messages.at(-1)
  const lastLength = JSON.stringify(last?.parts ?? []).length
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll as the last message grows
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [messages.length, lastLength, failure])

  if (messages.length === 0 && !failure)
    return (
      <section className="conversation empty" aria-label="Conversation">
        <div className="welcome">
          <h2>How can we help?</h2>
          <p>
            This desk runs on a durable event log: reload the page or open it in a second tab and
            the conversation carries on.
          </p>
          <ul>
            <li>“close ticket T-42”: the agent asks for your approval first</li>
            <li>“remind me in 10 seconds to stretch”: a timer that comes back as a message</li>
            <li>“show me some markdown”: lists and code, rendered as they stream</li>
          </ul>
        </div>
      </section>
    )

  return (
    <section className="conversation" aria-label="Conversation">
      {messages.map((message) => {
        const author = authorOf(message)
        return (
          <Fragment key={message.id}>
            <article
              className={`message message-${message.role} message-from-${author.toLowerCase()}`}
              aria-label={author}
            >
              <div className="avatar" aria-hidden="true">
                {avatarOf[author]}
              </div>
              <div className="bubble">
                {author === 'Reminder' ? (
                  <span className="tag reminder-tag">Reminder: sent by its timer, not typed</span>
                ) : null}
                {steering.has(message.id) ? (
                  <span className="tag steering-tag">
                    Steering: the agent takes it after this step
                  </span>
                ) : null}
                {message.parts.map((part, index) => {
                  const key = `${message.id}:${index}`
                  if (part.type === 'text')
                    return message.role === 'assistant' ? (
                      <Markdown key={key} text={part.text} streaming={part.state === 'streaming'} />
                    ) : (
                      <p key={key} className="text">
                        {part.text}
                      </p>
                    )
                  if (isCompactionPart(part))
                    return (
                      <p key={key} className={`compaction compaction-${part.data.status}`}>
                        {compactionLabel[part.data.status]}
                      </p>
                    )
                  if (isToolPart(part))
                    return (
                      <div key={key} className={`tool tool-${part.state}`}>
                        <div className="tool-head">
                          <span className="tool-name">{toolName(part)}</span>
                          <span className="tool-state">
                            {toolStateLabel[part.state] ?? part.state}
                          </span>
                        </div>
                        {part.input !== undefined ? (
                          <div className="tool-io">
                            <span className="tool-io-label">Input</span>
                            <ToolValue value={part.input} />
                          </div>
                        ) : null}
                        {part.state === 'output-available' ? (
                          <div className="tool-io">
                            <span className="tool-io-label">Result</span>
                            <ToolValue value={part.output} />
                          </div>
                        ) : null}
                        {part.state === 'output-error' ? (
                          <p className="tool-error">{part.errorText}</p>
                        ) : null}
                      </div>
                    )
                  return null
                })}
                {stopped.has(message.id) ? <p className="stopped-marker">Stopped</p> : null}
                {failure?.messageId === message.id ? <FailureNote failure={failure} /> : null}
              </div>
            </article>
            {stoppedUnanswered.has(message.id) ? <StoppedUnanswered /> : null}
          </Fragment>
        )
      })}
      {failure && !messages.some((message) => message.id === failure.messageId) ? (
        <article className="message message-assistant" aria-label="Agent">
          <div className="avatar" aria-hidden="true">
            AI
          </div>
          <div className="bubble">
            <FailureNote failure={failure} />
          </div>
        </article>
      ) : null}
      <div ref={end} />
    </section>
  )
}

/** The agent's side of a turn Stop ended before its first token: only the marker. */
function StoppedUnanswered() {
  return (
    <article className="message message-assistant" aria-label="Agent">
      <div className="avatar" aria-hidden="true">
        AI
      </div>
      <div className="bubble">
        <p className="stopped-marker">Stopped</p>
      </div>
    </article>
  )
}

function FailureNote({ failure }: { failure: TurnFailure }) {
  return (
    <p className="turn-error" role="alert">
      <strong>The model call failed.</strong> {failure.error}
    </p>
  )
}
