/**
 * The version of the log endpoint's wire: what a client and the server
 * exchange (the SSE frames and the events in them, the POST body
 * `{ events }` and its answer, the cursor: `id:`, `Last-Event-ID`,
 * `?after=`, `?head`). A change that would make a page loaded before a
 * deploy misread the new server, or the server misread that page, bumps
 * it. What the log stores is versioned by its contracts, not by this.
 *
 * Here, in the lowest layer, because both sides read it: the HTTP edge
 * answers it and the client sends it, and neither may import the other.
 */
export const WIRE_PROTOCOL = 1

/** The oldest protocol a server of this build still answers (it translates the ones between). */
export const OLDEST_WIRE_PROTOCOL = 1

/**
 * The protocol of a request that names none: a client from before
 * protocols were named, which spoke the first one.
 */
export const UNNAMED_PROTOCOL = 1

/**
 * The request header that names the protocol a request was written for,
 * and the response header with the newest protocol the server speaks.
 */
export const PROTOCOL_HEADER = 'a2-protocol'

/** The query parameter for clients that cannot set headers (a plain `EventSource`). */
export const PROTOCOL_QUERY = 'protocol'

/**
 * The response header with the server's deployment version, when the
 * server sends one (the client only passes it on).
 */
export const VERSION_HEADER = 'a2-version'

/** What a `PROTOCOL_MISMATCH` refusal tells the client. */
export interface ProtocolMismatch {
  /** The protocol the request was written for. */
  client: number
  /** The newest protocol the server speaks. */
  server: number
  /** The oldest protocol the server still answers. */
  oldest: number
}
