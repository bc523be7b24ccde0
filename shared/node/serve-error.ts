import { A2Error } from '../log/error-brand.ts'

/** Codes of the Node server helpers (`a2-aws/node`). */
export type ServeErrorCode = 'PORT_IN_USE' | 'INVALID_PORT' | 'HOST_UNAVAILABLE'

declare module '../log/error-brand.ts' {
  interface A2Codes extends Record<ServeErrorCode, undefined> {}
}

/**
 * The server could not listen: another process holds the port. Its message
 * says which and what to do, so a command line can print it as it is
 * instead of Node's `EADDRINUSE` stack.
 */
export class PortInUseError extends A2Error<'PORT_IN_USE'> {
  readonly port: number
  readonly hostname: string

  constructor(port: number, hostname: string, options?: { cause?: unknown }) {
    super(
      'PORT_IN_USE',
      `Port ${port} on ${hostname} is in use: stop what is listening there, or pick another port with PORT=<port> (PORT=0 picks a free one).`,
      options,
    )
    this.name = 'PortInUseError'
    this.port = port
    this.hostname = hostname
  }
}

/**
 * The port is not one: not an integer from 0 to 65535 (`PORT=abc`,
 * `PORT=99999`), or a string that is not its digits (quoted in the message,
 * so an empty one shows as `""`). Raised before anything listens, in place
 * of Node's `ERR_SOCKET_BAD_PORT` stack.
 */
export class InvalidPortError extends A2Error<'INVALID_PORT'> {
  /** What was given, as given (a string from the environment, or a number). */
  readonly port: string | number

  constructor(port: string | number) {
    super(
      'INVALID_PORT',
      `Port ${typeof port === 'string' ? JSON.stringify(port) : port} is not a port: pick an integer from 0 to 65535 with PORT=<port> (PORT=0 picks a free one).`,
    )
    this.name = 'InvalidPortError'
    this.port = port
  }
}

/**
 * The server cannot listen on that host: the name does not resolve, or the
 * address is not one of this machine's (`HOST=192.0.2.1`). In place of
 * Node's `ENOTFOUND` or `EADDRNOTAVAIL` stack.
 */
export class HostUnavailableError extends A2Error<'HOST_UNAVAILABLE'> {
  readonly hostname: string

  constructor(hostname: string, options?: { cause?: unknown }) {
    const systemCode = (options?.cause as { code?: unknown } | undefined)?.code
    const why =
      systemCode === 'EADDRNOTAVAIL'
        ? 'not an address of this machine'
        : 'the name does not resolve'
    super(
      'HOST_UNAVAILABLE',
      `Cannot listen on host ${hostname} (${why}): pick another with HOST=<host> (127.0.0.1, the default, listens on loopback only; 0.0.0.0 on every interface).`,
      options,
    )
    this.name = 'HostUnavailableError'
    this.hostname = hostname
  }
}

/** Whether `port` is one a server can listen on (0: any free one). */
export function isPort(port: number): boolean {
  return Number.isInteger(port) && port >= 0 && port <= 65_535
}

/** Node's codes for a host it cannot listen on: a name that does not resolve, an address not here. */
const HOST_ERRORS = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL', 'EADDRNOTAVAIL'])

/**
 * Node's listen error as this package's: a busy port as a `PortInUseError`,
 * a bad port as an `InvalidPortError`, a host it cannot listen on as a
 * `HostUnavailableError`; any other error as it is.
 */
export function listenError(error: unknown, port: number, hostname: string): unknown {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'EADDRINUSE') return new PortInUseError(port, hostname, { cause: error })
  if (code === 'ERR_SOCKET_BAD_PORT') return new InvalidPortError(port)
  if (typeof code === 'string' && HOST_ERRORS.has(code))
    return new HostUnavailableError(hostname, { cause: error })
  return error
}
