import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto'
import { HttpError } from './http-error.ts'
import type { Authorize, OpenedSession, Operation } from './log-endpoint.ts'

/** How long a minted token is good for by default: a day. */
export const DEFAULT_CAPABILITY_TTL_SECONDS = 24 * 60 * 60

/** The signing key, or where to get it (called once; a Secrets Manager read, say). */
export type CapabilityKey = string | Uint8Array | (() => Promise<string | Uint8Array>)

export interface SessionCapabilityOptions {
  /** At least 32 bytes of secret; the same key in every process that checks tokens. */
  key: CapabilityKey
  /** Lifetime of a minted token in seconds (default a day). */
  ttlSeconds?: number
  /** New sessions' IDs (default `s-` and a random UUID). */
  generateSessionId?: () => string
  /** The clock, in milliseconds (tests). */
  now?: () => number
}

export interface SessionCapability {
  /** A token that opens `sessionId` (read and push) until it expires. */
  mint(sessionId: string, options?: { ttlSeconds?: number }): Promise<OpenedSession>
  /**
   * Checks the request's token against the session: the session ID when it
   * is good, else an `HttpError` (401 missing, malformed, forged or expired;
   * 403 a good token for another session).
   */
  verify(request: Request, sessionId: string): Promise<void>
  /** `verify` as an `authorize`, for `fetch(request, { authorize })` (compose with `allOf`). */
  authorize: Authorize
  /** For `fetch(request, { openSession })`: a fresh session and its token. */
  openSession: (request: Request) => Promise<OpenedSession>
}

const VERSION = 'a2s1'
const MIN_KEY_BYTES = 32

/**
 * A session capability: the server names a new session and signs a token
 * for it (HMAC-SHA256 over the session ID and an expiry), and every GET and
 * POST must carry it, as `Authorization: Bearer <token>` or, for an
 * `EventSource` that cannot set headers, `?token=`. Whoever holds the token
 * may read and write that one session; a stranger with the URL may not. The
 * default for an anonymous page: no sign-in, and no session of anyone else.
 *
 * @example
 * const sessions = sessionCapability({ key: process.env.A2_SESSION_KEY })
 * export const POST = (request: Request) => assistant.fetch(request, sessions)
 */
export function sessionCapability(options: SessionCapabilityOptions): SessionCapability {
  const ttl = options.ttlSeconds ?? DEFAULT_CAPABILITY_TTL_SECONDS
  const now = options.now ?? Date.now
  const generateSessionId = options.generateSessionId ?? (() => `s-${randomUUID()}`)
  let key: Promise<Buffer> | undefined
  // Read once (a cold start's secret read) and kept; a failed read is retried.
  const keyBytes = (): Promise<Buffer> => {
    key ??= loadKey(options.key).catch((error: unknown) => {
      key = undefined
      throw error
    })
    return key
  }

  async function mint(
    sessionId: string,
    { ttlSeconds = ttl }: { ttlSeconds?: number } = {},
  ): Promise<OpenedSession> {
    const expires = Math.floor(now() / 1000) + ttlSeconds
    const body = `${VERSION}.${Buffer.from(sessionId).toString('base64url')}.${expires}`
    const token = `${body}.${sign(await keyBytes(), body).toString('base64url')}`
    return { sessionId, token, expiresAt: new Date(expires * 1000).toISOString() }
  }

  // A request is checked twice, by `authenticate` before the body is read
  // and by `authorize` after: the token's checks (an HMAC) run once.
  const checked = new WeakMap<Request, Promise<string>>()
  const sessionOfToken = (request: Request): Promise<string> => {
    let session = checked.get(request)
    if (session === undefined) {
      session = checkToken(request)
      checked.set(request, session)
    }
    return session
  }

  /** The token's own checks (present, canonical, signed here, unexpired): its session. */
  async function checkToken(request: Request): Promise<string> {
    const token = tokenOf(request)
    if (token === undefined) {
      throw new HttpError(
        401,
        'TOKEN_MISSING',
        'This session needs its token: send `Authorization: Bearer <token>` (or `?token=` for an EventSource)',
      )
    }
    const parts = token.split('.')
    const [version, encodedSession, expires, signature] = parts
    if (
      parts.length !== 4 ||
      version !== VERSION ||
      !/^\d{1,12}$/.test(expires ?? '') ||
      !isCanonicalBase64url(encodedSession) ||
      !isCanonicalBase64url(signature)
    ) {
      throw new HttpError(401, 'TOKEN_INVALID', 'The token is malformed')
    }
    const expected = sign(await keyBytes(), parts.slice(0, 3).join('.'))
    const given = Buffer.from(signature, 'base64url')
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new HttpError(401, 'TOKEN_INVALID', 'The token is not signed by this server')
    }
    if (Number(expires) * 1000 <= now()) {
      throw new HttpError(401, 'TOKEN_EXPIRED', 'The token has expired: open a new session')
    }
    return Buffer.from(encodedSession, 'base64url').toString()
  }

  async function verify(request: Request, sessionId: string): Promise<void> {
    if ((await sessionOfToken(request)) !== sessionId) {
      throw new HttpError(403, 'FORBIDDEN', `The token does not open session "${sessionId}"`)
    }
  }

  const authorize: Authorize = async (operation: Operation) => {
    await verify(operation.request, operation.sessionId)
    return true
  }
  // Who is asking, before the endpoint reads what they sent.
  authorize.authenticate = async (request) => {
    await sessionOfToken(request)
  }

  return {
    mint,
    verify,
    authorize,
    openSession: () => mint(generateSessionId()),
  }
}

/**
 * Base64url exactly as `Buffer#toString('base64url')` writes it: no padding,
 * no `+` or `/`, and no set bits past the last byte, so a token has one
 * spelling (a decoder would accept several for the same bytes).
 */
function isCanonicalBase64url(text: string | undefined): text is string {
  if (!text || !/^[A-Za-z0-9_-]+$/.test(text)) return false
  return Buffer.from(text, 'base64url').toString('base64url') === text
}

function sign(key: Buffer, body: string): Buffer {
  return createHmac('sha256', key).update(body).digest()
}

function tokenOf(request: Request): string | undefined {
  const header = request.headers.get('authorization')
  if (header !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
    // A malformed header is not silently replaced by the query's token.
    return match ? match[1] : ''
  }
  return new URL(request.url).searchParams.get('token') ?? undefined
}

async function loadKey(source: CapabilityKey): Promise<Buffer> {
  const raw = typeof source === 'function' ? await source() : source
  const bytes = typeof raw === 'string' ? Buffer.from(raw) : Buffer.from(raw)
  if (bytes.length < MIN_KEY_BYTES) {
    throw new HttpError(
      500,
      'INTERNAL',
      `The session key is ${bytes.length} bytes; it needs at least ${MIN_KEY_BYTES}`,
    )
  }
  return bytes
}
