import { GetQueueAttributesCommand, SendMessageCommand } from '@aws-sdk/client-sqs'
import { describe, expect, it, vi } from 'vitest'
import { deriveUIMessages, inputs } from '../../../shared/ai.ts'
import { sendInputs } from '../../../shared/aws/ingress-message.ts'
import { ROUTER_STREAM } from '../../../shared/aws/pipeline-functions.ts'
import type { StoredEvent } from '../../../shared/log/event.ts'
import { scriptedModel, text } from '../../../shared/testing/scripted-model.ts'
import { expectEachAnsweredOnce, until, userMessage } from '../../support/agent-log.ts'
import { pipelineForSuite } from '../../support/pipeline.ts'
import { readSse } from '../../support/sse.ts'

const script = scriptedModel([
  text('Hello from the pipeline!', { chunks: 3 }),
  text('Your order shipped.'),
  text('a'),
  text('b'),
  text('c'),
  text('d'),
])
const suite = pipelineForSuite({ name: 'support-agent', model: script.model })
/** The assistant's finished replies, folded from the SSE events as a browser would. */
const replyText = (messages: { data: string }[]): string[] => {
  const events = messages.map((message) => JSON.parse(message.data) as StoredEvent)
  if (!events.some((event) => event.type === 'ai.message.completed')) return []
  return deriveUIMessages(events)
    .filter((message) => message.role === 'assistant')
    .map((message) => message.parts.map((part) => (part.type === 'text' ? part.text : '')).join(''))
}

describe('the pipeline on the emulator (router, FIFO lanes, ingress, HTTP streaming)', () => {
  it('answers a POSTed message; the reply streams over SSE', async () => {
    // When the router first runs: its mapping gathers for its batching window.
    const postedAt = Date.now()
    let routedAt: number | undefined
    const watch = setInterval(() => {
      if (suite().pipeline.stats.routerInvocations > 0) routedAt ??= Date.now()
    }, 20)
    const posted = await fetch(`${suite().pipeline.url}?sessionId=web-1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        events: inputs.message({ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }),
      }),
    })
    expect(posted.status).toBe(200)

    const stream = await fetch(`${suite().pipeline.url}?sessionId=web-1`)
    expect(stream.headers.get('content-type')).toContain('text/event-stream')
    const read = await readSse(stream, {
      until: (sse) => replyText(sse.messages).length > 0,
      timeoutMs: 20_000,
    })
    expect(replyText(read.messages)).toEqual(['Hello from the pipeline!'])
    // SSE ids are log indexes, for Last-Event-ID resumes.
    expect(read.messages.map((message) => Number(message.id))).toEqual(
      read.messages.map((_, n) => n + 1),
    )
    expect(suite().pipeline.stats.laneInvocations.generation).toBeGreaterThan(0)
    // The backstop reads the turn's records once its batching window has passed.
    await vi.waitFor(() => expect(routedAt).toBeDefined(), { timeout: 15_000, interval: 100 })
    clearInterval(watch)
    expect((routedAt as number) - postedAt).toBeGreaterThanOrEqual(
      ROUTER_STREAM.maxBatchingWindowSeconds * 1000 - 100,
    )
  })

  it('starts a turn from inputs sent to the ingress queue', async () => {
    await sendInputs(
      { client: suite().sqs, queueUrl: suite().queues.ingress.url },
      'ops-1',
      ...inputs.message({
        id: 'ops-m1',
        role: 'user',
        parts: [{ type: 'text', text: 'Where is my order?' }],
      }),
    )
    const stream = await fetch(`${suite().pipeline.url}?sessionId=ops-1`)
    const read = await readSse(stream, {
      until: (sse) => replyText(sse.messages).length > 0,
      timeoutMs: 20_000,
    })
    expect(replyText(read.messages)).toEqual(['Your order shipped.'])
  })

  it('sends a malformed ingress message to the DLQ after its receives, and appends nothing', async () => {
    await suite().sqs.send(
      new SendMessageCommand({
        QueueUrl: suite().queues.ingress.url,
        MessageBody: JSON.stringify({
          sessionId: 'poison-1',
          events: [{ type: 'ai.generation.completed', payload: {} }],
        }),
        MessageGroupId: 'poison-1',
      }),
    )
    const deadline = Date.now() + 20_000
    let inDeadLetter = 0
    while (Date.now() < deadline) {
      const { Attributes } = await suite().sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: suite().queues.ingress.deadLetterUrl,
          AttributeNames: ['ApproximateNumberOfMessages'],
        }),
      )
      inDeadLetter = Number(Attributes?.ApproximateNumberOfMessages ?? 0)
      if (inDeadLetter > 0) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(inDeadLetter).toBe(1)
    expect(await suite().agent.runtime.log.session('poison-1').read()).toEqual([])
  })

  it('keeps concurrent pushes to one session in one order, each admitted and answered once', async () => {
    const posted = await Promise.all(
      ['c1', 'c2', 'c3', 'c4'].map((id) =>
        fetch(`${suite().pipeline.url}?sessionId=busy`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ events: inputs.message(userMessage(id, id)) }),
        }),
      ),
    )
    expect(posted.map((response) => response.status)).toEqual([200, 200, 200, 200])
    const { state } = await until(async () => {
      const current = await suite().agent.session('busy').state()
      return current.state.active === null && current.state.messages.length === 8 && current
    }, 30_000)
    expectEachAnsweredOnce(state.messages, ['c1', 'c2', 'c3', 'c4'], ['a', 'b', 'c', 'd'])
  }, 40_000)
})
