import type { EventInput, StoredEvent } from '../log/event.ts'
import { backoff } from '../timing/backoff.ts'
import { sleep } from '../timing/sleep.ts'
import { CLIENT_RETRY_POLICY, clientBackoff } from './backoff.ts'
import { AgentClientError, errorFromResponse, isRetryable, networkError } from './client-error.ts'

/** Static headers, or a function for ones that change (a fresh auth token). */
export type HeadersOption = HeadersInit | (() => HeadersInit | Promise<HeadersInit>)

/** The HTTP face of an agent as a client sees it: where, with what, through which fetch. */
export interface Endpoint {
  api: string
  fetch: typeof globalThis.fetch
  headers?: HeadersOption
}

/** `api` with the session (and resume index) in the query; `api` may be relative in a browser. */
export function sessionUrl(api: string, sessionId: string, after?: number): string {
  const query = new URLSearchParams({ sessionId })
  if (after !== undefined) query.set('after', String(after))
  return `${api}${api.includes('?') ? '&' : '?'}${query}`
}

export async function resolveHeaders(option: HeadersOption | undefined): Promise<Headers> {
  return new Headers(typeof option === 'function' ? await option() : option)
}

/**
 * POSTs a batch and returns the events as stored. Every event must carry its
 * ID, so a retry after a lost answer replays the batch instead of
 * duplicating it; only failures that may be transient are retried.
 *
 * @example
 * const stored = await postEvents(endpoint, 's1', [{ id: 'e1', type: 'note.added', payload: {} }])
 */
export async function postEvents(
  endpoint: Endpoint,
  sessionId: string,
  events: readonly EventInput[],
  {
    attempts = CLIENT_RETRY_POLICY.maxAttempts,
    delay = (attempt: number) => backoff(attempt, clientBackoff({})),
  } = {},
): Promise<StoredEvent[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await postOnce(endpoint, sessionId, events)
    } catch (error) {
      if (!isRetryable(error) || attempt + 1 >= attempts) throw error
      await sleep(delay(attempt))
    }
  }
}

async function postOnce(
  endpoint: Endpoint,
  sessionId: string,
  events: readonly EventInput[],
): Promise<StoredEvent[]> {
  const headers = await resolveHeaders(endpoint.headers)
  headers.set('content-type', 'application/json')
  let response: Response
  try {
    response = await endpoint.fetch(sessionUrl(endpoint.api, sessionId), {
      method: 'POST',
      headers,
      body: JSON.stringify({ events }),
    })
  } catch (cause) {
    throw networkError(cause)
  }
  if (!response.ok) throw await errorFromResponse(response)
  const body = (await response.json().catch(() => undefined)) as { events?: unknown } | undefined
  if (!Array.isArray(body?.events)) {
    throw new AgentClientError('BAD_RESPONSE', response.status, 'The agent answered without events')
  }
  return body.events as StoredEvent[]
}
