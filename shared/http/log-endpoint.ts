import type { SomeErrorStatuses } from '../log/error-statuses.ts'
import { LOG_ERROR_STATUSES } from '../log/errors.ts'
import type { EventInput, StoredEvent } from '../log/event.ts'
import { checkPayloadDepth } from '../log/event-envelope.ts'
import type { EventLog } from '../log/event-log.ts'
import type { Claim } from '../log/event-store.ts'
import { errorResponse, HttpError } from './http-error.ts'
import { streamResponse } from './log-stream-response.ts'
import type { Principal } from './principal.ts'
import { readJsonBody } from './read-body.ts'
import { requestProtocol, withServerProtocol } from './request-protocol.ts'
import type { SseResponseOptions } from './sse.ts'

/**
 * What a request wants to do, for `authorize` to decide; `principal` is who
 * the platform verified (a Cognito user, an IAM caller), when it did.
 *
 * `protocol` is the wire protocol the request was written for (its
 * `a2-protocol`, 1 when it names none). It is recorded here, where a
 * deployer's own policy and logging see every read and push, rather than in
 * the stored events: the edge reads (and would translate) a request of any
 * protocol it speaks into the events of today, so what the log holds does
 * not depend on the page that sent it, and a protocol in every event would
 * only restate which deploy's page was open.
 */
export type Operation =
  | { type: 'read'; sessionId: string; request: Request; protocol: number; principal?: Principal }
  | {
      type: 'push'
      sessionId: string
      events: readonly EventInput[]
      request: Request
      protocol: number
      principal?: Principal
    }

/**
 * Decides one read or push. It may also say who is asking before the request
 * is read (`authenticate`: throw an `HttpError`, a 401, for a caller it does
 * not know), so a stranger learns nothing about what is wrong with the body
 * they sent; `sessionCapability` and `allOf` carry one.
 */
export interface Authorize {
  (operation: Operation): boolean | Promise<boolean>
  authenticate?: Authenticate
}

/** Who is asking, checked before a request's query or body is read. */
export type Authenticate = (request: Request, principal?: Principal) => void | Promise<void>

export interface LogEndpointOptions<Options extends FetchOptions = FetchOptions> {
  log: EventLog
  /**
   * Refuses events a browser may not push (for an agent: every
   * server-authored `ai.*` event) by throwing an `HttpError` or `A2Error`.
   * Runs before `authorize`.
   */
  checkPush?: (events: readonly EventInput[]) => void
  /**
   * Runs when a client opens a session's stream (an agent wakes the session
   * here, so a reconnecting browser also recovers work a crashed process left).
   * It may answer the stream's `settled` check (an agent's: the session's
   * state, folded on from where it read it), so the stream ends soon after
   * the turn it served is over (`stream.settledQuietMs`).
   */
  onRead?: (sessionId: string) => Promise<undefined | Pick<SseResponseOptions, 'settled'>>
  /**
   * Appends a push (default: as pushed). It may store more after the pushed
   * events in the same batch (an agent: the controller's decision on them),
   * and returns the whole stored batch, the pushed events first: the POST
   * answers with those, and `onAppended` gets the batch. It gets the
   * request's fetch options (an agent's: where the request's figures go).
   */
  append?: (
    sessionId: string,
    events: readonly EventInput[],
    options: Options,
  ) => Promise<StoredEvent[]>
  /** Runs after a push is stored (an agent wakes its handlers here). */
  onAppended?: (sessionId: string, events: StoredEvent[]) => Promise<void>
  /** Body limit for pushes (default 4 MiB, a little above one append's limit). */
  maxBodyBytes?: number
  stream?: Omit<SseResponseOptions, 'signal' | 'head' | 'after'>
  /**
   * The HTTP status of the codes the layers under the endpoint throw, beside
   * the log's (which it always answers): each layer's table, merged by
   * whoever builds the endpoint (an agent: `AGENT_ERROR_STATUSES`). A code
   * with no status is a 500 that leaks nothing.
   */
  errorStatuses?: SomeErrorStatuses
}

/** A session the server opened, and what its client needs to use it. */
export interface OpenedSession {
  sessionId: string
  /** The session's capability token (see `sessionCapability`). */
  token: string
  /** When the token stops working (ISO 8601). */
  expiresAt: string
}

export interface FetchOptions {
  /** Decides each read and push; may throw an `HttpError` (a 401) instead of returning false. */
  authorize?: Authorize
  /** Who the platform verified, handed to `authorize` (the Lambda adapter fills it). */
  principal?: Principal
  /**
   * Answers a POST `{}` that names no session with `201` and a new session
   * (a session capability's `openSession`). Without it that POST is a 400.
   */
  openSession?: (request: Request) => Promise<OpenedSession>
}

const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024

/**
 * The HTTP face of a session log, as a fetch handler (`Request` in,
 * `Response` out) that any server, route file or Lambda adapter can mount:
 *
 * - `GET ?sessionId=S[&after=N][&follow]` streams the session's events as
 *   SSE; `id:` is the log index and `Last-Event-ID` resumes after it. The
 *   stream ends with a `: quiet` comment once the session has been quiet for
 *   a while, unless `&follow` asks it to stay open (for curl).
 * - `GET ?sessionId=S&head` answers `{ "head": N }`, the session's last
 *   index: a cheap check for news while no stream is open.
 * - `GET ?sessionId=S&events[&after=N]` answers the stored events as JSON,
 *   `{ sessionId, head, events }`, and `GET ?sessionId=S&claims=K1,K2` the
 *   claims on those keys, `{ sessionId, claims: { K1: Claim | null } }`: the
 *   inspector's reads (`npx a2-aws inspect`, the page's panel). Read-only:
 *   the same `read` check as the stream, and no wake-up.
 * - `POST ?sessionId=S` with `{ "events": [...] }` (or `{ sessionId, events }`)
 *   appends them and answers `{ events }` as stored; a replayed batch gets
 *   the original answer.
 * - `POST {}` naming no session opens one, when `openSession` is given.
 *
 * Every request may name the wire protocol it was written for
 * (`a2-protocol`, or `?protocol=`; none is protocol 1); one the server does
 * not speak is refused first, `400 PROTOCOL_MISMATCH`, so nothing is read
 * or written for it. Every response names the server's (`a2-protocol`).
 * Errors are JSON: `{ error: { code, message, details? } }`.
 */
export function logEndpoint<Options extends FetchOptions = FetchOptions>(
  options: LogEndpointOptions<Options>,
) {
  const statuses = { ...LOG_ERROR_STATUSES, ...options.errorStatuses }
  return async function fetch(
    request: Request,
    fetchOptions: Options = {} as Options,
  ): Promise<Response> {
    return withServerProtocol(await answer(request, fetchOptions))
  }

  async function answer(request: Request, fetchOptions: Options): Promise<Response> {
    try {
      const url = new URL(request.url)
      // First: a page of another deploy is told to reload, whoever it is.
      const asked = { request, url, protocol: requestProtocol(request, url) }
      if (request.method === 'GET') {
        await authenticate(request, fetchOptions)
        return await get(options, asked, fetchOptions)
      }
      if (request.method === 'POST') {
        const refusal = await authenticate(request, fetchOptions).then(
          () => undefined,
          (error: unknown) => ({ error }),
        )
        // A stranger may only open a session (`POST {}`); anything else they
        // send is answered with who they are not, before what is wrong with it.
        if (refusal) return await openOrRefuse(request, url, fetchOptions, refusal.error)
        return await post(options, asked, fetchOptions)
      }
      throw new HttpError(
        405,
        'METHOD_NOT_ALLOWED',
        `${request.method} is not supported; use GET or POST`,
      )
    } catch (error) {
      return errorResponse(error, statuses)
    }
  }
}

async function authorizeOrThrow(
  authorize: Authorize | undefined,
  operation: Operation,
): Promise<void> {
  if (authorize && !(await authorize(operation))) {
    throw new HttpError(
      403,
      'FORBIDDEN',
      `Not allowed to ${operation.type} session "${operation.sessionId}"`,
    )
  }
}

/** A request, its URL, and the wire protocol it was written for. */
interface Asked {
  request: Request
  url: URL
  protocol: number
}

/** A GET: the head, an inspection read, or the session's stream. */
async function get<Options extends FetchOptions>(
  options: LogEndpointOptions<Options>,
  { request, url, protocol }: Asked,
  fetchOptions: FetchOptions,
): Promise<Response> {
  const { log } = options
  const session = log.session(sessionIdOf(url))
  const read = {
    type: 'read' as const,
    sessionId: session.sessionId,
    request,
    protocol,
    ...principalOf(fetchOptions),
  }
  if (url.searchParams.has('head')) {
    await authorizeOrThrow(fetchOptions.authorize, read)
    // One read of the head item: no wake-up, no stream. With its life: a
    // tab that applied as many events of an erased life is behind.
    const { index, life } = await session.restingHead()
    return Response.json(
      { head: index, ...(life === undefined ? {} : { life }) },
      { headers: { 'cache-control': 'no-store' } },
    )
  }
  const after = resumeIndex(request, url)
  await authorizeOrThrow(fetchOptions.authorize, read)
  const inspection = await inspectionRead(log, session.sessionId, url, after)
  if (inspection) return inspection
  const head = await session.head()
  // Best effort: a failed wake-up must not cost the reader its stream.
  const watch = await options.onRead?.(session.sessionId).catch(() => undefined)
  return streamResponse(session, request, url, {
    after,
    head,
    settled: watch?.settled,
    stream: options.stream,
  })
}

/** A POST of events: checked, authorized, appended, answered as stored. */
async function post<Options extends FetchOptions>(
  options: LogEndpointOptions<Options>,
  { request, url, protocol }: Asked,
  fetchOptions: Options,
): Promise<Response> {
  const { log, checkPush } = options
  const body = await readJsonBody(request, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)
  if (fetchOptions.openSession && opensSession(body, url)) {
    return opened(await fetchOptions.openSession(request))
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    !Array.isArray((body as { events?: unknown }).events)
  ) {
    throw new HttpError(400, 'MALFORMED_REQUEST', 'The body must be { "events": [...] }')
  }
  const { events, sessionId: bodySessionId } = body as {
    events: EventInput[]
    sessionId?: unknown
  }
  const querySessionId = url.searchParams.get('sessionId')
  if (querySessionId !== null && bodySessionId !== undefined && bodySessionId !== querySessionId) {
    throw new HttpError(400, 'MALFORMED_REQUEST', 'The body and the query name different sessions')
  }
  const session = log.session(sessionIdOf(url, bodySessionId))
  if (events.length === 0) throw new HttpError(400, 'MALFORMED_REQUEST', 'Push at least one event')
  // Before checkPush and authorize, which may walk the events.
  for (const event of events) checkPayloadDepth(event)
  checkPush?.(events)
  await authorizeOrThrow(fetchOptions.authorize, {
    type: 'push',
    sessionId: session.sessionId,
    events,
    request,
    protocol,
    ...principalOf(fetchOptions),
  })
  const stored: StoredEvent[] = options.append
    ? await options.append(session.sessionId, events, fetchOptions)
    : await session.append(events)
  await options.onAppended?.(session.sessionId, stored)
  return Response.json(
    { events: stored.slice(0, events.length) },
    { headers: { 'cache-control': 'no-store' } },
  )
}

/** `authorize`'s own check of who is asking, if it has one. */
async function authenticate(request: Request, fetchOptions: FetchOptions): Promise<void> {
  await fetchOptions.authorize?.authenticate?.(request, fetchOptions.principal)
}

/** The most a stranger's `POST {}` is read for: a few bytes of JSON. */
const STRANGER_BODY_BYTES = 1024

async function openOrRefuse(
  request: Request,
  url: URL,
  fetchOptions: FetchOptions,
  refusal: unknown,
): Promise<Response> {
  if (!fetchOptions.openSession) throw refusal
  const body = await readJsonBody(request, STRANGER_BODY_BYTES).catch(() => {
    throw refusal
  })
  if (!opensSession(body, url)) throw refusal
  return opened(await fetchOptions.openSession(request))
}

function opened(session: OpenedSession): Response {
  return Response.json(session, { status: 201, headers: { 'cache-control': 'no-store' } })
}

/** How many claim keys one `?claims=` read may name. */
const MAX_CLAIM_KEYS = 100

/** The inspector's JSON reads (`?events`, `?claims=`), or undefined for the stream. */
async function inspectionRead(
  log: EventLog,
  sessionId: string,
  url: URL,
  after: number,
): Promise<Response | undefined> {
  const headers = { 'cache-control': 'no-store' }
  if (url.searchParams.has('events')) {
    const session = log.session(sessionId)
    const events = await session.read({ after })
    return Response.json({ sessionId, head: events.at(-1)?.index ?? after, events }, { headers })
  }
  const raw = url.searchParams.get('claims')
  if (raw === null) return undefined
  const keys = [...new Set(raw.split(',').filter((key) => key.length > 0))]
  if (keys.length > MAX_CLAIM_KEYS) {
    throw new HttpError(400, 'MALFORMED_REQUEST', `Ask for at most ${MAX_CLAIM_KEYS} claims`)
  }
  const claims: Record<string, Claim | null> = {}
  for (const key of keys) claims[key] = (await log.store.readClaim(sessionId, key)) ?? null
  return Response.json({ sessionId, claims }, { headers })
}

function principalOf({ principal }: FetchOptions): { principal?: Principal } {
  return principal ? { principal } : {}
}

/** `POST {}`: no session in the query or the body, and no events. */
function opensSession(body: unknown, url: URL): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    Object.keys(body).length === 0 &&
    !url.searchParams.has('sessionId')
  )
}

function sessionIdOf(url: URL, fromBody?: unknown): string {
  const sessionId = url.searchParams.get('sessionId') ?? fromBody
  if (typeof sessionId !== 'string') {
    throw new HttpError(400, 'MALFORMED_REQUEST', 'Name the session: ?sessionId=...')
  }
  return sessionId
}

/** `Last-Event-ID` (set by a reconnecting EventSource) wins over `?after=`. */
function resumeIndex(request: Request, url: URL): number {
  const raw = request.headers.get('last-event-id') ?? url.searchParams.get('after') ?? '0'
  const index = Number(raw)
  if (!Number.isSafeInteger(index) || index < 0) {
    throw new HttpError(
      400,
      'MALFORMED_REQUEST',
      `Cannot resume after "${raw}": expected a log index`,
    )
  }
  return index
}
