import {
  OLDEST_WIRE_PROTOCOL,
  PROTOCOL_HEADER,
  PROTOCOL_QUERY,
  UNNAMED_PROTOCOL,
  WIRE_PROTOCOL,
} from '../log/wire-protocol.ts'
import { HttpError } from './http-error.ts'

/** The protocols a server answers, oldest to newest (both included). */
interface ProtocolRange {
  oldest: number
  newest: number
}

const THIS_SERVER: ProtocolRange = { oldest: OLDEST_WIRE_PROTOCOL, newest: WIRE_PROTOCOL }

/**
 * The wire protocol a request was written for: its `a2-protocol` header,
 * else its `?protocol=` (a plain `EventSource` sets no headers), else the
 * first protocol (a page loaded before clients named theirs). One the
 * server no longer speaks, or newer than it knows, is refused before
 * anything is read or written: a page from another deploy that guessed
 * would misread the stream or have its commands misread, and reloading it
 * fixes that.
 *
 * @example
 * requestProtocol(new Request(url, { headers: { 'a2-protocol': '1' } }), new URL(url)) // 1
 */
export function requestProtocol(
  request: Request,
  url: URL,
  range: ProtocolRange = THIS_SERVER,
): number {
  const raw = request.headers.get(PROTOCOL_HEADER) ?? url.searchParams.get(PROTOCOL_QUERY)
  if (raw === null) return UNNAMED_PROTOCOL
  const protocol = Number(raw)
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(protocol) || protocol < 1) {
    throw new HttpError(
      400,
      'MALFORMED_REQUEST',
      `The ${PROTOCOL_HEADER} "${raw}" is not a protocol version (a positive integer)`,
    )
  }
  if (protocol >= range.oldest && protocol <= range.newest) return protocol
  const speaks =
    range.oldest === range.newest ? `${range.newest}` : `${range.oldest} to ${range.newest}`
  throw new HttpError(
    400,
    'PROTOCOL_MISMATCH',
    `This page was written for protocol ${protocol} and the server speaks ${speaks}: reload the page`,
    { client: protocol, server: range.newest, oldest: range.oldest },
  )
}

/**
 * Names the newest protocol this server speaks on a response, so a client
 * can tell a newer server from its own before anything is refused.
 */
export function withServerProtocol(response: Response): Response {
  response.headers.set(PROTOCOL_HEADER, String(WIRE_PROTOCOL))
  return response
}
