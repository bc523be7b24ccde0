// `a2-aws/node`: serving an agent (or any fetch handler) on Node's own HTTP
// server, for a standalone server outside Lambda:
// - `serveAgent(agent, options)`: the agent at `/api/agent`, a built page
//   beside it if you have one;
// - `serveFetch(fetch, options)`: any fetch handler;
// - `PortInUseError` (code `PORT_IN_USE`): what both reject with when the
//   port is taken; `InvalidPortError` (`INVALID_PORT`) when it is not a
//   port, `HostUnavailableError` (`HOST_UNAVAILABLE`) when the host does not
//   resolve or is not this machine's.
// Node only (`node:http` through @hono/node-server); no AWS SDK.

export { type LocalServer, type ServeFetchOptions, serveFetch } from './serve.ts'
export {
  type ServableAgent,
  type ServeAgentOptions,
  serveAgent,
} from './serve-agent.ts'
export {
  HostUnavailableError,
  InvalidPortError,
  PortInUseError,
  type ServeErrorCode,
} from './serve-error.ts'
