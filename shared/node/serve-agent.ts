import type { Authorize, FetchOptions } from '../http/log-endpoint.ts'
import { type LocalServer, type ServeFetchOptions, serveFetch } from './serve.ts'
import { staticFiles } from './static-files.ts'

/** What `serveAgent` needs of an agent: the value `agent()` returns has it. */
export interface ServableAgent {
  fetch(request: Request, options?: FetchOptions): Promise<Response>
}

export interface ServeAgentOptions extends ServeFetchOptions {
  /** Where the agent answers GET (SSE) and POST (default `/api/agent`). */
  path?: string
  /** Who may read or push a session: called on every GET and POST. */
  authorize?: Authorize
  /** Answers `POST {}` with a new session (see `sessionCapability().openSession`). */
  openSession?: FetchOptions['openSession']
  /**
   * A built page (a Vite `dist/`, say) served at every other GET path, with
   * index.html for paths that are not files. Without it those paths are 404s.
   */
  webRoot?: string
  /** More handlers by exact path, tried before the agent and the page. */
  routes?: Record<string, (request: Request) => Response | Promise<Response>>
}

/**
 * A standalone Node server for an agent: its endpoint at `path`, and
 * optionally a built page beside it, same-origin. Anything else under
 * `/api/` is a JSON 404. A busy port rejects with `PortInUseError` (and a bad
 * port or host with `InvalidPortError` or `HostUnavailableError`).
 *
 * @example
 * const server = await serveAgent(assistant, { port: 3000, webRoot: 'web/dist' })
 * console.log(`${server.url}/api/agent`)
 */
export function serveAgent(
  agent: ServableAgent,
  {
    path = '/api/agent',
    authorize,
    openSession,
    webRoot,
    routes = {},
    ...listen
  }: ServeAgentOptions = {},
): Promise<LocalServer> {
  const page = webRoot === undefined ? undefined : staticFiles(webRoot)
  const fetchOptions: FetchOptions = {
    ...(authorize ? { authorize } : {}),
    ...(openSession ? { openSession } : {}),
  }
  return serveFetch(async (request) => {
    const { pathname } = new URL(request.url)
    const route = routes[pathname]
    if (route) return route(request)
    if (pathname === path) return agent.fetch(request, fetchOptions)
    const read = request.method === 'GET' || request.method === 'HEAD'
    if (page && read && !pathname.startsWith('/api/')) return page(pathname)
    return Response.json(
      { error: { code: 'NOT_FOUND', message: `Nothing at ${pathname}; the agent is at ${path}` } },
      { status: 404 },
    )
  }, listen)
}
