/**
 * Why a request got no answer, from the error `fetch` threw: Node's
 * `TypeError: fetch failed` says nothing itself, its `cause` does
 * (`getaddrinfo ENOTFOUND ai-gateway.vercel.sh`, `connect ECONNREFUSED
 * 127.0.0.1:4000`, several of them for a host with several addresses), and
 * a timeout is a `TimeoutError`. `undefined` when the error is none of these
 * (an HTTP answer the caller read, a bug).
 *
 * @example
 * catch (error) { const why = fetchFailure(error); if (why) throw new Error(`${url} cannot be reached: ${why}`) }
 */
export function fetchFailure(error: unknown): string | undefined {
  if (isNamed(error, 'TimeoutError')) return 'no answer before the timeout'
  if (!(error instanceof TypeError) || error.message !== 'fetch failed') return undefined
  return causeOf(error.cause) ?? 'fetch failed'
}

/** The system errors under `fetch failed`, joined: one per address tried. */
function causeOf(cause: unknown): string | undefined {
  if (cause instanceof AggregateError) {
    const each = cause.errors.map(causeOf).filter((line) => line !== undefined)
    return each.length > 0 ? [...new Set(each)].join('; ') : cause.message || undefined
  }
  if (cause instanceof Error) return cause.message || (cause as { code?: string }).code
  return undefined
}

function isNamed(error: unknown, name: string): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === name
}
