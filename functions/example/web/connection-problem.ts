import type { AgentClientError, ConnectionStatus, ReloadReason } from 'a2-aws/ai/client'

/**
 * Why the page cannot follow its session, told apart by what the server
 * said, because each needs another answer from the user: `unreachable`, no
 * answer at all (offline, or the server is down), and `troubled`, an error
 * a retry may fix (a 5xx, a 429): both heal by themselves, as the client
 * keeps trying; `refused`, a 4xx that no retry changes (a link without its
 * token, a token an earlier server signed): only a new conversation helps;
 * `outdated`, a server of another deploy that no longer speaks this page's
 * protocol (`reload`): only reloading the page helps, and the conversation
 * is still there after it.
 */
export type ConnectionProblem = 'unreachable' | 'troubled' | 'refused' | 'outdated'

export function connectionProblem(
  connection: ConnectionStatus,
  error: AgentClientError | null,
  reload: ReloadReason | null = null,
): ConnectionProblem | null {
  // The page's, not the session's: whatever the stream says, reload.
  if (reload !== null) return 'outdated'
  if (connection === 'failed') return 'refused'
  if (connection !== 'reconnecting') return null
  // A status of 0 is the client's own: the request got no answer.
  return error !== null && error.status > 0 ? 'troubled' : 'unreachable'
}
