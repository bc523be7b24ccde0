import type { Agent } from '../../shared/agent/index.ts'
import { errorResponse } from '../../shared/http/http-error.ts'

/**
 * `GET /api/state?sessionId=...` for `npm start` and `npm run local`: the
 * folded state the browser would build, a convenience for curl. Not deployed
 * (the deployed API serves the agent's endpoint only).
 */
export function stateRoute(
  agent: Pick<Agent, 'session'>,
  /** Checks the caller may read the session (its token), throwing an HTTP error if not. */
  verify?: (request: Request, sessionId: string) => Promise<unknown>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method !== 'GET') {
      return Response.json(
        {
          error: {
            code: 'METHOD_NOT_ALLOWED',
            message: 'Read it with GET /api/state?sessionId=...',
          },
        },
        { status: 405 },
      )
    }
    const sessionId = new URL(request.url).searchParams.get('sessionId') ?? ''
    try {
      await verify?.(request, sessionId)
    } catch (error) {
      return errorResponse(error)
    }
    try {
      return Response.json(await agent.session(sessionId).state())
    } catch (error) {
      return Response.json(
        { error: { code: 'INVALID_SESSION_ID', message: (error as Error).message } },
        { status: 400 },
      )
    }
  }
}
