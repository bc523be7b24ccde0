import type { AgentClientError } from 'a2-aws/ai/client'
import { startNewConversation } from './page-session.ts'

/**
 * What each refusal of a session's token means to the person holding the
 * link (docs/http.md#authorization); any other refusal quotes the server.
 */
const tokenReasons: Partial<Record<string, string>> = {
  TOKEN_MISSING: 'This browser has no key for it: the link was opened without its token.',
  // `npm start` signs with a key of its own each run; deployed, the key's secret was replaced.
  TOKEN_INVALID:
    'The server no longer accepts its key: the server restarted with new keys, or the link was changed.',
  TOKEN_EXPIRED: 'Its key has expired.',
  FORBIDDEN: 'Its key opens another conversation, not this one.',
}

/**
 * Shown when the server refused this session's stream for good: says why,
 * in the link holder's terms, and offers the one way out, a new
 * conversation, instead of leaving the page waiting for a server that
 * answered.
 */
export function SessionRefused({ error }: { error: AgentClientError | null }) {
  const reason = error ? tokenReasons[error.code] : undefined
  return (
    <div className="refused" role="alert">
      <p className="refused-title">
        {reason
          ? "This conversation's link is no longer valid."
          : 'The server refused this conversation.'}
      </p>
      <p className="refused-reason">
        {reason ?? error?.message ?? 'It gave no reason.'} A new conversation starts empty.
      </p>
      <button type="button" className="primary small" onClick={startNewConversation}>
        Start a new conversation
      </button>
    </div>
  )
}
