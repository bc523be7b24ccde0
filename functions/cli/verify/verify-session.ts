import type { VerifyTarget } from './verify-target.ts'

/**
 * A session for one check. Against an API that opens sessions (session
 * tokens, the construct's default) it is the one `POST {}` opened, and the
 * target carries its token; against one that does not (a `400`), the named
 * session and the target as given (`--header` for other auth).
 */
export async function verifySession<T extends VerifyTarget>(
  target: T,
  fallbackId: string,
): Promise<{ sessionId: string; target: T }> {
  const headers = new Headers(target.headers as [string, string][])
  headers.set('content-type', 'application/json')
  const response = await (target.fetch ?? fetch)(target.url, {
    method: 'POST',
    headers,
    body: '{}',
  })
  if (response.status !== 201) {
    await response.body?.cancel()
    return { sessionId: fallbackId, target }
  }
  const { sessionId, token } = (await response.json()) as { sessionId: string; token: string }
  const authorized: [string, string][] = [
    ...target.headers.filter(([name]) => name.toLowerCase() !== 'authorization'),
    ['authorization', `Bearer ${token}`],
  ]
  return { sessionId, target: { ...target, headers: authorized } }
}
