/**
 * `GET /api/state?sessionId=...` for `npm start` and `npm run local`: the
 * folded state the browser would build, a convenience for curl. Not deployed
 * (the deployed API serves the agent's endpoint only).
 */
export function stateRoute(agent: {
  session(id: string): { state(): Promise<unknown> }
}): (request: Request) => Promise<Response> {
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
      return Response.json(await agent.session(sessionId).state())
    } catch (error) {
      return Response.json(
        { error: { code: 'INVALID_SESSION_ID', message: (error as Error).message } },
        { status: 400 },
      )
    }
  }
}
