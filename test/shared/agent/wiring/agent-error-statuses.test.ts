import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { SessionActiveError } from '../../../../shared/agent/session/session-active-error.ts'
import { AGENT_ERROR_STATUSES } from '../../../../shared/agent/wiring/agent-error-statuses.ts'
import { inputs } from '../../../../shared/ai.ts'
import type { EventStore } from '../../../../shared/index.ts'
import { TimerConflictError } from '../../../../shared/runtime/in-process-scheduler.ts'
import { memoryEventStore } from '../../../../shared/stores/memory/memory-event-store.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../../../support/agent-log.ts'

describe("the agent's error statuses: each layer's table, merged where the endpoint is built", () => {
  it('answer every code the HTTP edge answered before the tables moved to their layers, with the same status', () => {
    expect(AGENT_ERROR_STATUSES).toEqual({
      INVALID_EVENT: 400,
      RESERVED_EVENT_ID: 400,
      INVALID_SESSION_ID: 400,
      APPEND_CONFLICT: 409,
      APPEND_CONTENDED: 503,
      ERASE_CONTENDED: 503,
      INVALID_APPEND: 500,
      PARTIAL_DUPLICATE_BATCH: 409,
      EVENT_TOO_LARGE: 413,
      BATCH_TOO_LARGE: 413,
      CURSOR_CONFLICT: 409,
      FENCED_OUT: 409,
      LIFE_ENDED: 409,
      CLAIM_HELD: 409,
      TIMER_CONFLICT: 409,
      INVALID_TIMER: 400,
      NO_HANDLER_CONTEXT: 500,
      INDEX_OUT_OF_RANGE: 400,
      SESSION_ACTIVE: 409,
      SESSION_NOT_EMPTY: 409,
      INVALID_EXPORT: 400,
      STEP_RESULT_TOO_LARGE: 500,
      UNKNOWN_HARNESS: 500,
      // Came after the move: a plain { type: 'pi' } refused (HarnessNotImportedError).
      HARNESS_NOT_IMPORTED: 500,
      HARNESS_UNAVAILABLE: 500,
      // Event schemas that evolve: the log holds an event the code's upcasters cannot read.
      UPCAST_FAILED: 500,
    })
  })

  it("are what the agent's endpoint answers a code of a layer above the log with", async () => {
    const failing = (error: Error): EventStore => ({
      ...memoryEventStore(),
      append: () => Promise.reject(error),
    })
    const post = (a: ReturnType<typeof agent>) =>
      a.fetch(
        new Request('http://a2.test/api/agent?sessionId=s1', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events: inputs.message(userMessage('m1', 'Hi')) }),
        }),
      )
    const model = scriptedModel([]).model
    const timer = { sessionId: 's1', name: 't', at: 1, events: [] }
    for (const [error, status] of [
      [new TimerConflictError(timer, 2), 409],
      [new SessionActiveError('s1', 'a turn runs'), 409],
    ] as const) {
      const a = track(agent({ name: 'statuses', model, store: failing(error) }))
      const response = await post(a)
      expect(await response.json()).toMatchObject({ error: { code: error.code } })
      expect(response.status).toBe(status)
    }
  })
})
