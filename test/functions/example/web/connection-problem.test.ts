import { describe, expect, it } from 'vitest'
import { connectionProblem } from '../../../../functions/example/web/connection-problem.ts'
import { AgentClientError } from '../../../../shared/client/index.ts'

describe("the chat page's reading of its connection", () => {
  it('tells a server it cannot reach from one in trouble and from one that refused', () => {
    const network = new AgentClientError('NETWORK_ERROR', 0, 'Could not reach the agent')
    const busy = new AgentClientError('APPEND_CONTENDED', 503, 'Try again')
    const refused = new AgentClientError(
      'TOKEN_INVALID',
      401,
      'The token is not signed by this server',
    )
    expect(connectionProblem('reconnecting', network)).toBe('unreachable')
    expect(connectionProblem('reconnecting', null)).toBe('unreachable')
    expect(connectionProblem('reconnecting', busy)).toBe('troubled')
    expect(connectionProblem('failed', refused)).toBe('refused')
    for (const fine of ['idle', 'connecting', 'open'] as const)
      expect(connectionProblem(fine, null)).toBeNull()
  })

  it('tells a server of another deploy, which only a reload answers, from one that refused the link', () => {
    const mismatch = new AgentClientError('PROTOCOL_MISMATCH', 400, 'reload the page', {
      details: { client: 2, server: 1, oldest: 1 },
    })
    const reload = {
      code: 'PROTOCOL_MISMATCH' as const,
      message: 'reload the page',
      client: 2,
      server: 1,
      oldest: 1,
    }
    expect(connectionProblem('failed', mismatch, reload)).toBe('outdated')
    // Another session of the page was refused: this one's open stream does not change that.
    expect(connectionProblem('open', null, reload)).toBe('outdated')
    expect(connectionProblem('failed', mismatch, null)).toBe('refused')
  })
})
