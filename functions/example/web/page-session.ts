/** The page's session: its ID (in the URL) and its capability token, when this browser has one. */
export interface PageSession {
  sessionId: string
  token?: string
}

const storageKey = (sessionId: string) => `a2.session-token.${sessionId}`

/**
 * The session in the URL (`?session=...`) with the token this browser keeps
 * for it; a link may carry the token in its fragment (`#token=...`, which is
 * never sent to a server), which is kept and taken out of the address bar.
 * Without a session in the URL, the server opens one (`POST {}`), and its ID
 * goes in the URL and its token in local storage, so a reload or a second
 * tab opens the same session. A session whose token this browser lacks is
 * still shown: the server refuses its stream, and the page says so.
 */
export async function pageSession(api: string): Promise<PageSession> {
  const url = new URL(window.location.href)
  const sessionId = url.searchParams.get('session')
  if (sessionId) {
    const linked = new URLSearchParams(url.hash.slice(1)).get('token')
    if (linked) {
      remember(sessionId, linked)
      url.hash = ''
      window.history.replaceState(null, '', url)
    }
    const token = linked ?? recall(sessionId)
    return token ? { sessionId, token } : { sessionId }
  }
  const response = await fetch(api, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  if (!response.ok) throw new Error(`the server answered ${response.status}`)
  const opened = (await response.json()) as { sessionId: string; token: string }
  remember(opened.sessionId, opened.token)
  url.searchParams.set('session', opened.sessionId)
  window.history.replaceState(null, '', url)
  return { sessionId: opened.sessionId, token: opened.token }
}

function remember(sessionId: string, token: string): void {
  try {
    window.localStorage.setItem(storageKey(sessionId), token)
  } catch {
    // Storage off (a private window's policy): the token lasts as long as the page.
  }
}

function recall(sessionId: string): string | undefined {
  try {
    return window.localStorage.getItem(storageKey(sessionId)) ?? undefined
  } catch {
    return undefined
  }
}

/**
 * Leaves this session for a new one, the way a first visit gets its own:
 * the page loads again without `?session=` (other parameters, `?inspect`,
 * stay), and `pageSession()` opens one with `POST {}`.
 */
export function startNewConversation(): void {
  const url = new URL(window.location.href)
  url.searchParams.delete('session')
  url.hash = ''
  window.location.assign(url)
}
