import { describe, expect, it } from 'vitest'
import { errorResponse, HttpError } from '../../../shared/http/http-error.ts'
import { logEndpoint } from '../../../shared/http/log-endpoint.ts'
import {
  AppendConflictError,
  BatchTooLargeError,
  EventTooLargeError,
  eventLog,
  FencedOutError,
  InvalidEventError,
  PartialDuplicateBatchError,
  ReservedEventIdError,
} from '../../../shared/index.ts'
import { TimerConflictError } from '../../../shared/runtime/in-process-scheduler.ts'
import { memoryEventStore } from '../../../shared/stores/memory/memory-event-store.ts'

/** The error body as sent, its keys in the order they were written. */
async function bodyOf(response: Response): Promise<string> {
  return response.text()
}

describe('errorResponse: a code’s details are the body’s details', () => {
  it('sends each log code’s details as they always went, in the same order, and none for a code without', async () => {
    const bodies = await Promise.all(
      [
        new InvalidEventError('note.added', [{ path: ['text'], message: 'Required' }]),
        new ReservedEventIdError('a2.x'),
        new AppendConflictError('s1', 3, 5),
        new AppendConflictError('s1', 3),
        new PartialDuplicateBatchError(['e1'], 'with other content'),
        new EventTooLargeError('e1', 500_000, 358_400),
        new BatchTooLargeError('too many events'),
        new BatchTooLargeError('too many bytes', 1_000),
        new FencedOutError('s1', 'gen:r1', 2),
      ].map((error) => errorResponse(error).json()),
    )
    expect(bodies.map((body) => JSON.stringify(body.error.details))).toEqual([
      '{"eventType":"note.added","path":["text"]}',
      '{"eventId":"a2.x"}',
      '{"expectedIndex":3,"actualIndex":5}',
      '{"expectedIndex":3}',
      '{"duplicateIds":["e1"]}',
      '{"limitBytes":358400,"eventId":"e1"}',
      undefined,
      '{"limitBytes":1000}',
      undefined,
    ])
  })

  it('sends an HttpError’s details as given', async () => {
    const response = errorResponse(
      new HttpError(413, 'BODY_TOO_LARGE', 'too large', { limitBytes: 10 }),
    )
    expect(response.status).toBe(413)
    expect(await bodyOf(response)).toBe(
      '{"error":{"code":"BODY_TOO_LARGE","message":"too large","details":{"limitBytes":10}}}',
    )
  })
})

describe('the status of a code comes from the table of the layer that declares it', () => {
  it('answers only the log’s codes by default: a runtime code is a 500 that tells nothing until its table is given', async () => {
    const conflict = new TimerConflictError({ sessionId: 's1', name: 't', at: 1, events: [] }, 2)
    const alone = errorResponse(conflict)
    expect(alone.status).toBe(500)
    expect(await alone.json()).toEqual({
      error: { code: 'INTERNAL', message: 'The server failed to handle the request' },
    })
    const told = errorResponse(conflict, { TIMER_CONFLICT: 409 })
    expect(told.status).toBe(409)
    expect(await told.json()).toMatchObject({ error: { code: 'TIMER_CONFLICT' } })
  })

  it('logEndpoint answers the log’s codes and those of the errorStatuses it is handed', async () => {
    const log = eventLog({ store: memoryEventStore() })
    const failing = (error: Error, errorStatuses?: { TIMER_CONFLICT: number }) =>
      logEndpoint({
        log,
        append: () => Promise.reject(error),
        ...(errorStatuses ? { errorStatuses } : {}),
      })(
        new Request('http://a2.test/api/agent?sessionId=s1', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events: [{ id: 'e1', type: 'x', payload: {} }] }),
        }),
      )
    const conflict = new TimerConflictError({ sessionId: 's1', name: 't', at: 1, events: [] }, 2)
    expect((await failing(conflict)).status).toBe(500)
    expect((await failing(conflict, { TIMER_CONFLICT: 409 })).status).toBe(409)
    // The log's own codes stay answered beside the ones handed in.
    const fenced = await failing(new FencedOutError('s1', 'gen:r1', 2), { TIMER_CONFLICT: 409 })
    expect(fenced.status).toBe(409)
    expect(await fenced.json()).toMatchObject({ error: { code: 'FENCED_OUT' } })
  })
})
