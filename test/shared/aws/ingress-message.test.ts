import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { inputs } from '../../../shared/ai.ts'
import { parseIngressMessage, sendInputs } from '../../../shared/aws/ingress-message.ts'
import { MAX_EVENTS_PER_APPEND } from '../../../shared/log/limits.ts'
import { fakeClient } from '../../support/fake-clients.ts'

const note = (n: number, text = 'hi') => ({
  id: `note-${n}`,
  type: 'app.note',
  payload: { text },
})

describe('sendInputs', () => {
  it('sends what one append can hold as one message, keyed by session', async () => {
    const sqs = fakeClient()
    await sendInputs(
      { client: sqs.client, queueUrl: 'ingress' },
      's1',
      ...inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'hi' }] }),
    )
    expect(sqs.sent.map((call) => [call.name, call.input.MessageGroupId])).toEqual([
      ['SendMessageCommand', 's1'],
    ])
  })

  it('refuses, before sending, more events than one append holds: SQS would take them, then every receive would fail', async () => {
    const sqs = fakeClient()
    const events = Array.from({ length: MAX_EVENTS_PER_APPEND + 1 }, (_, n) => note(n))
    await expect(
      sendInputs({ client: sqs.client, queueUrl: 'ingress' }, 's1', ...events),
    ).rejects.toMatchObject({ code: 'BATCH_TOO_LARGE' })
    expect(sqs.sent).toEqual([])
    // A hand-sent message of that size is refused by the handler with the same limit.
    expect(() => parseIngressMessage(JSON.stringify({ sessionId: 's1', events }))).toThrow(
      `at most ${MAX_EVENTS_PER_APPEND}`,
    )
  })

  it('refuses, before sending, an event the store cannot hold, and a message above SQS size', async () => {
    const sqs = fakeClient()
    // Random base64: gzip saves only a quarter of it.
    const incompressible = (kb: number) => randomBytes(kb * 768).toString('base64')
    await expect(
      sendInputs({ client: sqs.client, queueUrl: 'ingress' }, 's1', note(1, incompressible(600))),
    ).rejects.toMatchObject({ code: 'EVENT_TOO_LARGE' })
    await expect(
      sendInputs(
        { client: sqs.client, queueUrl: 'ingress' },
        's1',
        note(1, incompressible(300)),
        note(2, incompressible(300)),
        note(3, incompressible(300)),
        note(4, incompressible(300)),
      ),
    ).rejects.toMatchObject({ code: 'MALFORMED_INGRESS_MESSAGE', message: /SQS takes at most/ })
    expect(sqs.sent).toEqual([])
  })
  it("refuses, before sending, a message whose part the AI SDK refuses, as the agent's append would", async () => {
    const sqs = fakeClient()
    const typo = inputs.message({
      id: 'm1',
      role: 'user',
      parts: [
        { type: 'text', text: 'Order 42' },
        { type: 'file', url: 'https://x.test/a.pdf' },
      ],
    } as never)
    await expect(
      sendInputs({ client: sqs.client, queueUrl: 'ingress' }, 's1', ...typo),
    ).rejects.toMatchObject({ code: 'INVALID_EVENT', path: ['message', 'parts', 1, 'mediaType'] })
    expect(sqs.sent).toEqual([])
  })
})

describe('parseIngressMessage', () => {
  it('reads { sessionId, events }, keeping every field of each event', () => {
    const events = [{ id: 'e1', type: 'app.note', payload: null, extra: 1 }, note(2)]
    expect(parseIngressMessage(JSON.stringify({ sessionId: 's1', events }))).toEqual({
      sessionId: 's1',
      events,
    })
  })

  it.each([
    ['not json', 'the body is not JSON'],
    ['[1]', 'the body is not a JSON object'],
    ['{"events":[{"type":"t","payload":1}]}', '"sessionId" must be a non-empty string'],
    [
      '{"sessionId":"","events":[{"type":"t","payload":1}]}',
      '"sessionId" must be a non-empty string',
    ],
    ['{"sessionId":"s"}', '"events" must be a non-empty array'],
    ['{"sessionId":"s","events":[]}', '"events" must be a non-empty array'],
    ['{"sessionId":"s","events":[{"type":"t","payload":1},7]}', 'events[1] is not an object'],
    ['{"sessionId":"s","events":[{"payload":1}]}', 'events[0].type must be a non-empty string'],
    [
      '{"sessionId":"s","events":[{"type":"t","payload":1,"id":3}]}',
      'events[0].id must be a string',
    ],
    ['{"sessionId":"s","events":[{"type":"t"}]}', 'events[0].payload is missing'],
  ])(
    'refuses %s with MALFORMED_INGRESS_MESSAGE, saying what is wrong and what it expects',
    (body, why) => {
      expect(() => parseIngressMessage(body)).toThrow(
        expect.objectContaining({
          code: 'MALFORMED_INGRESS_MESSAGE',
          message: `Ingress message refused: ${why}. Expected {"sessionId": "...", "events": [{"type": "...", "payload": ...}]}`,
        }),
      )
    },
  )
})
