/** The agent's HTTP endpoint as verify reaches it. */
export interface VerifyTarget {
  url: string
  /** Sent with every request (`--header`), for APIs behind authorization. */
  headers: readonly [string, string][]
  fetch?: typeof fetch
  /** Monotonic milliseconds since the epoch (default: `performance`). */
  now?: () => number
}

/** The endpoint's URL for one session (`?sessionId=`), resuming `after` an index if given. */
export function sessionUrl(url: string, sessionId: string, after?: number): string {
  const target = new URL(url)
  target.searchParams.set('sessionId', sessionId)
  if (after !== undefined) target.searchParams.set('after', String(after))
  return target.href
}

export const errorText = (error: unknown): string =>
  error instanceof Error
    ? `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`
    : String(error)
