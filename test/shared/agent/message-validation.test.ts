import type { UIMessage } from 'ai'
import { describe, expect, it } from 'vitest'
import { agent } from '../../../shared/agent/index.ts'
import { inputs } from '../../../shared/ai.ts'
import type { EventInput } from '../../../shared/index.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { textOf, track, until, userMessage } from '../../support/agent-log.ts'

// "Validate message parts with the AI SDK's own UI message schemas on every
// push (400 with the path, nothing written)". Each malformed part sits second,
// after a good one, so the path names the part that is wrong.
const MALFORMED: [string, Record<string, unknown>, (string | number)[]][] = [
  ['a part whose type is misspelt ("txt")', { type: 'txt', text: 'hi' }, ['type']],
  ['a text part whose text is a number', { type: 'text', text: 42 }, ['text']],
  ['a file part with neither mediaType nor url', { type: 'file' }, ['mediaType']],
]

const withPart = (id: string, part: Record<string, unknown>, role = 'user'): UIMessage =>
  ({ id, role, parts: [{ type: 'text', text: 'ok' }, part] }) as UIMessage

const post = (body: unknown) =>
  new Request('http://a2.test/api/agent?sessionId=s1', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

/** An agent whose session s1 already holds one answered turn. */
async function answeredSession(replies: string[] = []) {
  const script = scriptedModel([text('first answer'), ...replies.map((reply) => text(reply))])
  const a = track(agent({ name: 'checked', model: script.model }))
  await a.session('s1').append(...inputs.message(userMessage('m0', 'Hi')))
  await a.runtime.idle()
  const before = await a.runtime.log.session('s1').read()
  return { a, script, before }
}

describe('messages are checked with the AI SDK UI message schemas on every push', () => {
  it.each(MALFORMED)(
    'HTTP: %s answers 400 INVALID_EVENT with its path, and the log is unchanged',
    async (_what, part, field) => {
      const { a, before } = await answeredSession()
      const response = await a.fetch(post({ events: inputs.message(withPart('m1', part)) }))
      const body = (await response.json()) as {
        error: { code: string; message: string; details?: { eventType?: string; path?: unknown } }
      }
      expect(response.status).toBe(400)
      expect(body.error.code).toBe('INVALID_EVENT')
      expect(body.error.details).toEqual({
        eventType: 'ai.control.requested',
        path: ['message', 'parts', 1, ...field],
      })
      expect(body.error.message).toContain(`payload.message.parts.1.${field.join('.')}`)
      expect(await a.runtime.log.session('s1').read()).toEqual(before)
    },
  )

  it.each(MALFORMED)(
    'session(id).append: %s is refused with INVALID_EVENT for message(), seed() and steer(), writing nothing',
    async (_what, part, field) => {
      const { a, before } = await answeredSession()
      const session = a.session('s1')
      const path = ['message', 'parts', 1, ...field]
      for (const events of [
        inputs.message(withPart('m1', part)),
        inputs.message(withPart('m2', part), { generate: false }),
        inputs.seed(withPart('a1', part, 'assistant')),
        inputs.steer(withPart('m3', part), { afterStepOf: null }),
      ]) {
        await expect(session.append(...events)).rejects.toMatchObject({
          code: 'INVALID_EVENT',
          eventType: 'ai.control.requested',
          path,
        })
      }
      expect(await a.runtime.log.session('s1').read()).toEqual(before)
    },
  )

  it('queue.edit(): an edit whose part is malformed is refused, and the pending message keeps its content', async () => {
    const script = scriptedModel([
      { hang: true, parts: text('working', { chunks: 2 }).slice(0, 3) },
      text('answered the queued one'),
    ])
    const a = track(agent({ name: 'edit', model: script.model }))
    const session = a.session('s1')
    await session.append(...inputs.message(userMessage('m1', 'first')))
    await until(async () => (await session.state()).state.activeGeneration?.status === 'running')
    await session.append(...inputs.message(userMessage('m2', 'queued')))
    await until(async () => (await session.state()).state.inbox.items.length === 1)
    const head = await a.runtime.log.session('s1').head()
    for (const [, part, field] of MALFORMED) {
      await expect(
        session.append(...inputs.queue.edit(withPart('m2', part))),
      ).rejects.toMatchObject({ code: 'INVALID_EVENT', path: ['message', 'parts', 1, ...field] })
    }
    expect(await a.runtime.log.session('s1').head()).toBe(head)
    script.release()
    await a.runtime.idle()
    const { state } = await session.state()
    expect(state.messages.find((message) => message.id === 'm2')?.parts).toEqual([
      { type: 'text', text: 'queued' },
    ])
    expect(textOf(state.messages.at(-1))).toBe('answered the queued one')
  })

  it('timers: schedule() refuses a malformed message at once, and a timer that carries one fires nothing', async () => {
    const { a, before } = await answeredSession()
    const [, part, field] = MALFORMED[0] as (typeof MALFORMED)[number]
    const events = inputs.message(withPart('t1', part)) as EventInput[]
    const path = ['message', 'parts', 1, ...field]
    await expect(a.session('s1').schedule('later', { delay: 10 }, ...events)).rejects.toMatchObject(
      { code: 'INVALID_EVENT', path },
    )
    // One set before the check, firing now.
    await expect(
      a.runtime.fireTimer({
        sessionId: 's1',
        name: 'old',
        events: events.map((event) => ({ ...event, id: 't1' })),
      }),
    ).rejects.toMatchObject({ code: 'INVALID_EVENT', path })
    await new Promise((resolve) => setTimeout(resolve, 50))
    await a.runtime.idle()
    expect(await a.runtime.log.session('s1').read()).toEqual(before)
  })

  it('the reported bug: three malformed passive messages are refused, and the good message after them is answered', async () => {
    const { a } = await answeredSession(['answer to the good one'])
    for (const [index, [, part]] of MALFORMED.entries()) {
      const pushed = await a.fetch(
        post({ events: inputs.message(withPart(`bad-${index}`, part), { generate: false }) }),
      )
      expect(pushed.status).toBe(400)
    }
    const good = await a.fetch(post({ events: inputs.message(userMessage('good', 'And now?')) }))
    expect(good.status).toBe(200)
    await a.runtime.idle()
    const { state } = await a.session('s1').state()
    expect(state.messages.map((message) => message.id)).toEqual([
      'm0',
      expect.any(String),
      'good',
      expect.any(String),
    ])
    expect(textOf(state.messages.at(-1))).toBe('answer to the good one')
  })

  it("an app's own parts pass as sent (custom data-* parts, metadata, fields the SDK does not name); a misspelt one does not", async () => {
    const { a } = await answeredSession(['ok'])
    const message = {
      id: 'm1',
      role: 'user',
      metadata: { source: 'crm' },
      parts: [
        { type: 'text', text: 'Ticket attached', note: 'kept' },
        { type: 'data-ticket', id: 'T-42', data: { id: 'T-42', priority: 'high' } },
        { type: 'file', mediaType: 'text/plain', url: 'data:text/plain;base64,aGk=' },
      ],
    } as UIMessage
    const [stored] = await a.session('s1').append(...inputs.message(message))
    expect(stored?.payload).toEqual({ action: 'message', generate: true, message })
    await expect(
      a.session('s1').append(...inputs.message(withPart('m2', { type: 'date-ticket', data: {} }))),
    ).rejects.toMatchObject({ code: 'INVALID_EVENT', path: ['message', 'parts', 1, 'type'] })
  })
})
