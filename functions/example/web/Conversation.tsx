import { isCompactionPart } from 'a2-aws/ai'
import type { DynamicToolUIPart, ToolUIPart, UIMessage } from 'ai'
import { useEffect, useRef } from 'react'

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

// Local twins of the AI SDK's helpers, so the page bundles none of its server code.
function isToolPart(part: UIMessage['parts'][number]): part is ToolPart {
  return part.type.startsWith('tool-') || part.type === 'dynamic-tool'
}

function toolName(part: ToolPart): string {
  return part.type === 'dynamic-tool' ? part.toolName : part.type.slice('tool-'.length)
}

/** The transcript: text, tool calls and compaction markers, newest at the bottom. */
export function Conversation({ messages }: { messages: UIMessage[] }) {
  const end = useRef<HTMLDivElement>(null)
  const last = messages.at(-1)
  const lastLength = JSON.stringify(last?.parts ?? []).length
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll as the last message grows
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'end' })
  }, [messages.length, lastLength])

  if (messages.length === 0)
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
          </ul>
        </div>
      </section>
    )

  return (
    <section className="conversation" aria-label="Conversation">
      {messages.map((message) => (
        <article
          key={message.id}
          className={`message message-${message.role}`}
          aria-label={message.role === 'user' ? 'You' : 'Agent'}
        >
          <div className="avatar" aria-hidden="true">
            {message.role === 'user' ? 'You' : 'AI'}
          </div>
          <div className="bubble">
            {message.parts.map((part, index) => {
              const key = `${message.id}:${index}`
              if (part.type === 'text')
                return (
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
                      <span className="tool-state">{toolStateLabel[part.state] ?? part.state}</span>
                    </div>
                    {part.input !== undefined ? (
                      <code className="tool-io">{JSON.stringify(part.input)}</code>
                    ) : null}
                    {part.state === 'output-available' ? (
                      <code className="tool-io">→ {JSON.stringify(part.output)}</code>
                    ) : null}
                    {part.state === 'output-error' ? (
                      <code className="tool-io">{part.errorText}</code>
                    ) : null}
                  </div>
                )
              return null
            })}
          </div>
        </article>
      ))}
      <div ref={end} />
    </section>
  )
}
