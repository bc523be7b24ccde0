import { type ServerType, serve } from '@hono/node-server'
import { InvalidPortError, isPort, listenError } from './serve-error.ts'
import { serverUrl } from './server-url.ts'

/** A running server: where it listens, and how to stop it. */
export interface LocalServer {
  /** `http://<hostname>:<port>` (an IPv6 address in brackets), with the port it got (for `port: 0`). */
  url: string
  /** Stops listening and ends open connections (SSE streams included). */
  close(): Promise<void>
}

export interface ServeFetchOptions {
  /**
   * Default 0: a free port. A string, such as `process.env.PORT`, is read as
   * the port's digits: anything else (`'abc'`, `'1e3'`, an empty string) is
   * an `InvalidPortError` naming it, so give a default for an unset or empty
   * variable: `process.env.PORT || 3000`.
   */
  port?: number | string
  /** Default `127.0.0.1` (loopback only); `0.0.0.0` listens on every interface. */
  hostname?: string
}

/**
 * Serves a fetch handler on Node's HTTP server (through @hono/node-server,
 * which maps client disconnects to `request.signal`, so SSE streams end).
 * A busy port rejects with `PortInUseError` (code `PORT_IN_USE`), a port that
 * is not one with `InvalidPortError` (`INVALID_PORT`), and a host it cannot
 * listen on (a name that does not resolve, an address not of this machine)
 * with `HostUnavailableError` (`HOST_UNAVAILABLE`).
 */
export function serveFetch(
  fetch: (request: Request) => Response | Promise<Response>,
  { port: given = 0, hostname = '127.0.0.1' }: ServeFetchOptions = {},
): Promise<LocalServer> {
  // Number() alone takes '', ' ', '0x10' and '1e3' for ports.
  const port = typeof given === 'number' ? given : /^\d+$/.test(given) ? Number(given) : Number.NaN
  if (typeof given === 'string' && !isPort(port)) return Promise.reject(new InvalidPortError(given))
  return new Promise((resolve, reject) => {
    let server: ServerType | undefined
    try {
      server = serve({ fetch, port, hostname }, (info) => {
        resolve({
          url: serverUrl(hostname, info.port),
          close: () =>
            new Promise((done) => {
              // Open SSE streams would keep close() waiting forever.
              if (server && 'closeAllConnections' in server) server.closeAllConnections()
              server?.close(() => done())
            }),
        })
      })
      server.once('error', (error) => reject(listenError(error, port, hostname)))
    } catch (error) {
      reject(listenError(error, port, hostname))
    }
  })
}
