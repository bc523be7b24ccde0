import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { AGENT_ERROR_STATUSES } from '../../../../shared/agent/wiring/agent-error-statuses.ts'
import { errorResponse } from '../../../../shared/http/http-error.ts'
import { hasA2Code } from '../../../../shared/index.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'
import { eventsOf, track } from '../../../support/agent-log.ts'

describe('a timer whose time cannot be read', () => {
  it('is refused with INVALID_TIMER (HTTP 400), not INVALID_EVENT, and sets nothing', async () => {
    const a = track(agent({ name: 'reminders', model: scriptedModel([]).model }))
    for (const when of [{ delay: 'soon' }, { delay: -5 }, { at: 'next tuesday-ish' }] as const) {
      const error = await a
        .session('s')
        .schedule('bad', when as never, { type: 'note.added', payload: {} })
        .catch((caught: unknown) => caught)
      expect(hasA2Code(error, 'INVALID_TIMER')).toBe(true)
      expect(hasA2Code(error, 'INVALID_EVENT')).toBe(false)
      expect(errorResponse(error, AGENT_ERROR_STATUSES).status).toBe(400)
    }
    expect(await eventsOf(a, 's')).toEqual([])
  })
})
