import { serveFetch } from '../../shared/node/serve.ts'
import { InvalidPortError, isPort } from '../../shared/node/serve-error.ts'

/** Where `npm start` and `npm run local` listen unless PORT and HOST say otherwise. */
const DEFAULT_PORT = 3000
const DEFAULT_HOST = '127.0.0.1'

/**
 * PORT and HOST for a command, checked before it starts anything (`npm run
 * local` would start a moto server first): a PORT that is not an integer
 * from 0 to 65535 is an `InvalidPortError`, a HOST it cannot listen on a
 * `HostUnavailableError`, each one line for `exitClearly`. An empty value
 * counts as unset: `HOST=` would otherwise listen on every interface.
 *
 * @example
 * const { port, hostname } = await listenAddress(process.env)
 */
export async function listenAddress(env: {
  PORT?: string | undefined
  HOST?: string | undefined
}): Promise<{ port: number; hostname: string }> {
  const rawPort = env.PORT?.trim() || String(DEFAULT_PORT)
  // Number() alone takes '0x10', '1e3' and ' ' for ports.
  const port = /^\d+$/.test(rawPort) ? Number(rawPort) : Number.NaN
  if (!isPort(port)) throw new InvalidPortError(rawPort)
  const hostname = env.HOST?.trim() || DEFAULT_HOST
  // Only listening tells whether a host is this machine's: listen on a free
  // port there and let go. A bad host rejects with HostUnavailableError.
  await (await serveFetch(() => new Response(null, { status: 404 }), { port: 0, hostname })).close()
  return { port, hostname }
}
