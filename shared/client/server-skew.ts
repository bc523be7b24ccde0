import {
  PROTOCOL_HEADER,
  type ProtocolMismatch,
  VERSION_HEADER,
  WIRE_PROTOCOL,
} from '../log/wire-protocol.ts'

/** What the server says of itself in its answers' headers. */
export interface ServerVersions {
  /** The newest wire protocol it speaks (`a2-protocol`); `null` until it answered with one. */
  protocol: number | null
  /** Its deployment version (`a2-version`), when it sends one; else `null`. */
  version: string | null
}

/**
 * Why the page must reload: the server refused the wire protocol this page
 * was written for (`PROTOCOL_MISMATCH`), so no retry will succeed. `message`
 * is the server's, fit to show; the numbers say which side is older.
 */
export interface ReloadReason extends ProtocolMismatch {
  code: 'PROTOCOL_MISMATCH'
  message: string
}

/** A client's picture of its server: the same object until something changes. */
interface ServerSkew {
  server: ServerVersions
  reload: ReloadReason | null
}

/**
 * One client's view of the server across all its sessions: the fetch that
 * names `WIRE_PROTOCOL` on every request and reads what each answer says of
 * the server, and the picture it keeps. Client-wide, because a protocol is
 * the page's, not a session's: one refusal means every session must reload.
 */
export interface SkewWatch {
  readonly fetch: typeof globalThis.fetch
  current(): ServerSkew
  /** Called whenever `current()` changes; returns the unsubscribe. */
  listen(listener: () => void): () => void
}

/**
 * Wraps `fetch`. A refusal is read (a clone of the answer) before the
 * caller gets the response, so a session whose stream turned `failed` for
 * it already shows `reload`. Once set, `reload` stays: a server of the new
 * deploy that refused this page will refuse it again.
 *
 * @example
 * const watch = skewWatch(globalThis.fetch)
 * await watch.fetch(url)
 * watch.current().reload // null, or why the page must reload
 */
export function skewWatch(fetch: typeof globalThis.fetch): SkewWatch {
  let current: ServerSkew = { server: { protocol: null, version: null }, reload: null }
  const listeners = new Set<() => void>()
  function update(next: Partial<ServerSkew>): void {
    current = { ...current, ...next }
    for (const listener of [...listeners]) listener()
  }
  async function observe(response: Response): Promise<void> {
    const server = serverOf(response.headers, current.server)
    if (server !== current.server) update({ server })
    if (current.reload !== null || response.status !== 400) return
    const reload = await reloadReasonOf(response, server.protocol ?? WIRE_PROTOCOL)
    if (reload) update({ reload })
  }
  return {
    async fetch(input, init) {
      const headers = new Headers(init?.headers)
      headers.set(PROTOCOL_HEADER, String(WIRE_PROTOCOL))
      const response = await fetch(input, { ...init, headers })
      await observe(response)
      return response
    },
    current: () => current,
    listen(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/** The server's versions as these headers name them; `known` itself when nothing changed. */
function serverOf(headers: Headers, known: ServerVersions): ServerVersions {
  const raw = headers.get(PROTOCOL_HEADER)
  const parsed = raw === null ? Number.NaN : Number(raw)
  const protocol = Number.isSafeInteger(parsed) && parsed > 0 ? parsed : known.protocol
  const version = headers.get(VERSION_HEADER) ?? known.version
  return protocol === known.protocol && version === known.version ? known : { protocol, version }
}

/**
 * A `PROTOCOL_MISMATCH` answer's reason, or undefined for any other 400.
 * A server that sent no details is still refusing: its header stands in.
 */
async function reloadReasonOf(
  response: Response,
  serverProtocol: number,
): Promise<ReloadReason | undefined> {
  const body = (await response
    .clone()
    .json()
    .catch(() => undefined)) as
    | { error?: { code?: unknown; message?: unknown; details?: Partial<ProtocolMismatch> } }
    | undefined
  const error = body?.error
  if (error?.code !== 'PROTOCOL_MISMATCH') return undefined
  const { client, server, oldest } = error.details ?? {}
  return {
    code: 'PROTOCOL_MISMATCH',
    message: typeof error.message === 'string' ? error.message : 'Reload the page',
    client: typeof client === 'number' ? client : WIRE_PROTOCOL,
    server: typeof server === 'number' ? server : serverProtocol,
    oldest: typeof oldest === 'number' ? oldest : serverProtocol,
  }
}
