import { brandA2Error } from '../log/error-brand.ts'

/** Codes of the Node server helpers (`a2-aws/node`). */
export type ServeErrorCode = 'PORT_IN_USE'

/**
 * The server could not listen: another process holds the port. Its message
 * says which and what to do, so a command line can print it as it is
 * instead of Node's `EADDRINUSE` stack.
 */
export class PortInUseError extends Error {
  readonly code: ServeErrorCode = 'PORT_IN_USE'
  readonly port: number
  readonly hostname: string

  constructor(port: number, hostname: string, options?: { cause?: unknown }) {
    super(
      `Port ${port} on ${hostname} is in use: stop what is listening there, or pick another port with PORT=<port> (PORT=0 picks a free one).`,
      options,
    )
    this.name = 'PortInUseError'
    this.port = port
    this.hostname = hostname
    brandA2Error(this, 'http')
  }
}

/** Node's listen error for a busy port, as a `PortInUseError`; any other error as it is. */
export function listenError(error: unknown, port: number, hostname: string): unknown {
  return (error as { code?: unknown } | null)?.code === 'EADDRINUSE'
    ? new PortInUseError(port, hostname, { cause: error })
    : error
}
