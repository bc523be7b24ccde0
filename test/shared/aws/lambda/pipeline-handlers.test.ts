import { PassThrough } from 'node:stream'
import type { APIGatewayProxyEvent, SQSRecord } from 'aws-lambda'
import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { requestFromApiGatewayEvent } from '../../../../shared/aws/lambda/http-handler.ts'
import type { PipelineLogger } from '../../../../shared/aws/lambda/pipeline-agent.ts'
import { pipelineHandlers } from '../../../../shared/aws/lambda/pipeline-handlers.ts'
import {
  VISIBILITY_LEASE,
  type VisibilityLease,
} from '../../../../shared/aws/pipeline-functions.ts'
import { timerMessageBody } from '../../../../shared/aws/timer-message.ts'
import { ClaimHeldError } from '../../../../shared/log/errors.ts'
import { DONE, type RunOutcome, type WakeUp } from '../../../../shared/runtime/wake-up.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'
import { userMessage } from '../../../support/conversation.ts'
import { fakeClient } from '../../../support/fake-clients.ts'
import { environment, silent } from '../../../support/pipeline-fixture.ts'
import { until } from '../../../support/until.ts'

function setup(
  run?: (wakeUp: WakeUp) => Promise<RunOutcome | undefined>,
  logger: PipelineLogger = silent,
  lease?: VisibilityLease,
  agentLogger: PipelineLogger = silent,
) {
  const sqs = fakeClient()
  const woken: WakeUp[] = []
  const assistant = agent({
    name: 'support-agent',
    model: scriptedModel([]).model,
    logger: agentLogger,
    dispatcher: { wake: async (wakeUps) => void woken.push(...wakeUps) },
  })
  if (run) {
    const runtime = assistant.runtime as { run: (wakeUp: WakeUp) => Promise<RunOutcome> }
    runtime.run = async (wakeUp) => (await run(wakeUp)) ?? DONE
  }
  const metadata: { statusCode: number; headers?: Record<string, string> }[] = []
  const handlers = pipelineHandlers(
    { default: assistant },
    {
      environment,
      logger,
      auth: { type: 'none' },
      sqs: sqs.client,
      ...(lease ? { lease } : {}),
      httpResponseStream: {
        from: (stream, meta) => {
          metadata.push(meta)
          return stream
        },
      },
    },
  )
  return { assistant, woken, handlers, metadata, sqs: sqs.sent }
}

let messageId = 0
function sqsRecord(body: string, groupId = 'g1', receiveCount = 1): SQSRecord {
  messageId++
  return {
    messageId: `m${messageId}`,
    receiptHandle: `r${messageId}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: '0',
      SenderId: 'x',
      ApproximateFirstReceiveTimestamp: '0',
      MessageGroupId: groupId,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:q.fifo',
    awsRegion: 'us-east-1',
  }
}

describe('a lane handler', () => {
  it('runs each wake-up; a failure fails the rest of its message group only', async () => {
    const ran: WakeUp[] = []
    const { handlers } = setup(async (wakeUp) => {
      ran.push(wakeUp)
      if (wakeUp.sessionId === 'boom') throw new Error('model down')
    })
    const records = [
      sqsRecord(JSON.stringify({ sessionId: 'boom', lane: 'admission' }), 'boom'),
      sqsRecord(JSON.stringify({ sessionId: 'boom', lane: 'admission' }), 'boom'),
      sqsRecord('not json', 'bad'),
      sqsRecord(JSON.stringify({ sessionId: 'fine', lane: 'admission' }), 'fine'),
      sqsRecord(JSON.stringify({ sessionId: 'other', lane: 'tools' }), 'other'),
    ]
    const result = await handlers.admission({ Records: records })
    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      records[0]?.messageId,
      records[1]?.messageId,
      records[2]?.messageId,
      records[4]?.messageId,
    ])
    // The second "boom" record was not run: its group had failed.
    expect(ran).toEqual([
      { sessionId: 'boom', lane: 'admission' },
      { sessionId: 'fine', lane: 'admission' },
    ])
  })
  it('records the failure on the session when the last receive fails, not before', async () => {
    const { assistant, handlers } = setup(async () => {
      throw new Error('model down')
    })
    const body = JSON.stringify({ sessionId: 'poison', lane: 'generation' })
    for (const receiveCount of [1, 2]) {
      const result = await handlers.generation({
        Records: [sqsRecord(body, 'poison', receiveCount)],
      })
      expect(result.batchItemFailures).toHaveLength(1)
    }
    expect(await assistant.runtime.log.session('poison').read()).toEqual([])

    const last = sqsRecord(body, 'poison', 3)
    const result = await handlers.generation({ Records: [last] })
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: last.messageId }])
    const { state } = await assistant.session('poison').state()
    expect(state.deadLetters).toEqual([
      { lane: 'generation', error: 'model down', attempts: 3, index: 1 },
    ])
    // The same message recorded again (a duplicate delivery) is one event.
    await handlers.generation({ Records: [last] })
    expect(await assistant.runtime.log.session('poison').read()).toHaveLength(1)
  })

  it('still fails the message, for the DLQ, and says so when the dead letter cannot be recorded', async () => {
    const errors: string[] = []
    const { assistant, handlers } = setup(
      async () => {
        throw new Error('model down')
      },
      { ...silent, error: (message: string) => void errors.push(message) },
    )
    ;(assistant.runtime as { deadLetter: unknown }).deadLetter = async () => {
      throw new Error('table unavailable')
    }
    const last = sqsRecord(JSON.stringify({ sessionId: 'p2', lane: 'generation' }), 'p2', 3)
    const result = await handlers.generation({ Records: [last] })
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: last.messageId }])
    expect(errors).toContain('a2: could not record the dead letter on the session')
  })

  it('waits for a claim held by an earlier attempt, then takes the work over in one receive', async () => {
    let runs = 0
    const expiresAt = Date.now() + 150
    const { handlers } = setup(async () => {
      runs++
      return Date.now() < expiresAt ? { kind: 'held', retryAt: expiresAt } : DONE
    })
    const result = await handlers.generation({
      Records: [sqsRecord(JSON.stringify({ sessionId: 's1', lane: 'generation' }), 's1')],
    })
    expect(result.batchItemFailures).toEqual([])
    expect(runs).toBe(2)
    expect(Date.now()).toBeGreaterThanOrEqual(expiresAt)
  })

  it('fails the message when the claim outlives the invocation', async () => {
    let runs = 0
    const { handlers } = setup(async () => {
      runs++
      return { kind: 'held', retryAt: Date.now() + 60_000 }
    })
    const record = sqsRecord(JSON.stringify({ sessionId: 's1', lane: 'generation' }), 's1')
    const result = await handlers.generation({ Records: [record] }, {
      getRemainingTimeInMillis: () => 30_000,
    } as never)
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }])
    expect(runs).toBe(1)
  })

  it('fails the message at once for an error that carries a retryAt: only an outcome means held', async () => {
    let runs = 0
    const { handlers } = setup(async (wakeUp) => {
      runs++
      // A claim error that escaped a lane is a bug, not a wait.
      throw new ClaimHeldError(wakeUp.sessionId, 'gen:r1', 1, Date.now() + 50)
    })
    const record = sqsRecord(JSON.stringify({ sessionId: 's1', lane: 'generation' }), 's1')
    const result = await handlers.generation({ Records: [record] })
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }])
    expect(runs).toBe(1)
  })
})

describe('the visibility lease of a queue handler', () => {
  type VisibilityInput = {
    QueueUrl: string
    Entries: { ReceiptHandle: string; VisibilityTimeout: number }[]
  }
  const visibilityCalls = (sent: { name: string; input: unknown }[]) =>
    sent
      .filter((call) => call.name === 'ChangeMessageVisibilityBatchCommand')
      .map(({ input }) => ({
        queue: (input as VisibilityInput).QueueUrl,
        entries: (input as VisibilityInput).Entries.map(
          (entry) => `${entry.ReceiptHandle}=${entry.VisibilityTimeout}`,
        ),
      }))

  it("leases a batch's messages at once, so a container that dies brings them back within the lease, not the queue's visibility timeout", async () => {
    const { handlers, sqs } = setup(async () => {})
    const records = [
      sqsRecord(JSON.stringify({ sessionId: 'a', lane: 'admission' }), 'a'),
      sqsRecord(JSON.stringify({ sessionId: 'b', lane: 'admission' }), 'b'),
    ]
    const result = await handlers.admission({ Records: records })
    expect(result.batchItemFailures).toEqual([])
    expect(visibilityCalls(sqs)).toEqual([
      {
        queue: 'a',
        entries: records.map((record) => `${record.receiptHandle}=${VISIBILITY_LEASE.seconds}`),
      },
    ])
  })

  it('renews the lease while the work runs, and never past the invocation deadline', async () => {
    const lease = { ...VISIBILITY_LEASE, seconds: 5, renewEverySeconds: 0.05 }
    const { handlers, sqs } = setup(
      () => new Promise((resolve) => setTimeout(resolve, 400)),
      silent,
      lease,
    )
    const record = sqsRecord(JSON.stringify({ sessionId: 's', lane: 'generation' }), 's')
    // The invocation has 200 ms left: renewals stop there, though the work runs on.
    const deadline = Date.now() + 200
    await handlers.generation({ Records: [record] }, {
      getRemainingTimeInMillis: () => deadline - Date.now(),
    } as never)
    const leases = visibilityCalls(sqs).map((call) => call.entries[0])
    // Renewed while it ran (a loaded machine fires fewer 50 ms timers in
    // 200 ms), and not for the 200 ms of work past the deadline (8 more).
    expect(leases.length).toBeGreaterThanOrEqual(2)
    expect(leases.length).toBeLessThanOrEqual(5)
    expect(new Set(leases)).toEqual(new Set([`${record.receiptHandle}=5`]))
  })

  it('brings a failed record (and the rest of its group) back after a short, growing backoff, and on the last receive at once, into the DLQ', async () => {
    const { handlers, sqs } = setup(async () => {
      throw new Error('model down')
    })
    const first = sqsRecord(JSON.stringify({ sessionId: 'x', lane: 'admission' }), 'x', 1)
    const sameGroup = sqsRecord(JSON.stringify({ sessionId: 'x', lane: 'admission' }), 'x', 1)
    await handlers.admission({ Records: [first, sameGroup] })
    const firstWait = VISIBILITY_LEASE.retry.baseDelayMs / 1000
    const backoff = visibilityCalls(sqs).at(-1)
    expect(backoff?.entries).toHaveLength(2)
    for (const entry of backoff?.entries ?? []) {
      const seconds = Number(entry.split('=')[1])
      expect(seconds).toBeGreaterThanOrEqual(1)
      expect(seconds).toBeLessThanOrEqual(firstWait)
    }
    const second = sqsRecord(JSON.stringify({ sessionId: 'x', lane: 'admission' }), 'x', 2)
    await handlers.admission({ Records: [second] })
    const grown = Number(visibilityCalls(sqs).at(-1)?.entries[0]?.split('=')[1])
    expect(grown).toBeGreaterThan(firstWait / 2)
    expect(grown).toBeLessThanOrEqual(2 * firstWait)
    const last = sqsRecord(JSON.stringify({ sessionId: 'x', lane: 'admission' }), 'x', 3)
    await handlers.admission({ Records: [last] })
    expect(visibilityCalls(sqs).at(-1)?.entries).toEqual([`${last.receiptHandle}=0`])
  })

  it('brings a message no redelivery can mend back at once, for the DLQ: a malformed ingress message, events the log refuses, a malformed timer', async () => {
    const { handlers, sqs } = setup()
    const malformed = sqsRecord('{"sessionId": "s1"}', 's1')
    const refused = sqsRecord(
      JSON.stringify({
        sessionId: 's2',
        events: [{ type: 'ai.generation.completed', payload: {} }],
      }),
      's2',
    )
    await handlers.ingress({ Records: [malformed, refused] })
    expect(visibilityCalls(sqs).at(-1)?.entries).toEqual([
      `${malformed.receiptHandle}=0`,
      `${refused.receiptHandle}=0`,
    ])
    const timer = sqsRecord('not a timer')
    await handlers.timers({ Records: [timer] })
    expect(visibilityCalls(sqs).at(-1)?.entries).toEqual([`${timer.receiptHandle}=0`])
  })

  it('leases the ingress and timer queues too', async () => {
    const { handlers, sqs } = setup()
    await handlers.ingress({ Records: [sqsRecord('not json', 's1')] })
    await handlers.timers({ Records: [sqsRecord('not json')] })
    expect(visibilityCalls(sqs).map((call) => call.queue)).toEqual(['i', 'i', 'tq', 'tq'])
  })
})

describe('the ingress handler', () => {
  it("appends a message's events as a trusted server append, with the controller's decision, and wakes its model step", async () => {
    const { assistant, handlers, woken } = setup()
    const events = inputs.message({
      id: 'msg-1',
      role: 'user',
      parts: [{ type: 'text', text: 'Order shipped' }],
    })
    const result = await handlers.ingress({
      Records: [sqsRecord(JSON.stringify({ sessionId: 's1', events }), 's1')],
    })
    expect(result.batchItemFailures).toEqual([])
    const stored = await assistant.runtime.log.session('s1').read()
    expect(stored.map((event) => [event.id, event.type])[0]).toEqual([
      'msg-1',
      'ai.control.requested',
    ])
    // Decided where it is written (decided-push.ts): the model step is due at once.
    expect(stored.map((event) => event.type)).toContain('ai.control.decided')
    expect(stored.at(-1)?.type).toBe('ai.generation.requested')
    expect(woken).toContainEqual(expect.objectContaining({ sessionId: 's1', lane: 'generation' }))
    expect(woken).not.toContainEqual(expect.objectContaining({ lane: 'admission' }))
  })

  it('is idempotent by event ID: a redelivered message appends once', async () => {
    const { assistant, handlers } = setup()
    const body = JSON.stringify({
      sessionId: 's1',
      events: [
        {
          id: 'n1',
          type: 'ai.control.requested',
          payload: {
            action: 'message',
            generate: false,
            message: { id: 'n1', role: 'user', parts: [{ type: 'text', text: 'hi' }] },
          },
        },
      ],
    })
    await handlers.ingress({ Records: [sqsRecord(body, 's1')] })
    const first = await assistant.runtime.log.session('s1').read()
    const again = await handlers.ingress({ Records: [sqsRecord(body, 's1')] })
    expect(again.batchItemFailures).toEqual([])
    const after = await assistant.runtime.log.session('s1').read()
    expect(after).toEqual(first)
    expect(after.filter((event) => event.id === 'n1')).toHaveLength(1)
  })

  it('fails a malformed message alone (to the DLQ after maxReceiveCount) and keeps the others', async () => {
    const { assistant, handlers } = setup()
    const good = inputs.message({
      id: 'msg-2',
      role: 'user',
      parts: [{ type: 'text', text: 'hello' }],
    })
    const records = [
      sqsRecord('{"sessionId": "s1"}', 's1'),
      sqsRecord(
        JSON.stringify({
          sessionId: 's2',
          events: [{ type: 'ai.generation.completed', payload: {} }],
        }),
        's2',
      ),
      sqsRecord(JSON.stringify({ sessionId: 's3', events: good }), 's3'),
    ]
    const result = await handlers.ingress({ Records: records })
    expect(result.batchItemFailures.map((failure) => failure.itemIdentifier)).toEqual([
      records[0]?.messageId,
      records[1]?.messageId,
    ])
    const [kept] = await assistant.runtime.log.session('s3').read()
    expect(kept?.id).toBe('msg-2')
    expect(await assistant.runtime.log.session('s2').read()).toHaveLength(0)
  })

  it('fails a message whose part the AI SDK refuses (INVALID_EVENT, logged with its path), appending nothing', async () => {
    const lines: { message: string; fields: unknown }[] = []
    const logger: PipelineLogger = {
      ...silent,
      error: (message, fields) => void lines.push({ message, fields }),
    }
    const { assistant, handlers } = setup(undefined, logger)
    const typo = inputs.message({
      id: 'msg-3',
      role: 'user',
      parts: [{ type: 'txt', text: 'Order shipped' }],
    } as never)
    const record = sqsRecord(JSON.stringify({ sessionId: 's1', events: typo }), 's1')
    const result = await handlers.ingress({ Records: [record] })
    expect(result.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }])
    expect(await assistant.runtime.log.session('s1').read()).toEqual([])
    expect(lines).toEqual([
      {
        message: 'a2: ingress message not appended',
        fields: expect.objectContaining({
          code: 'INVALID_EVENT',
          error: expect.stringContaining('payload.message.parts.0.type'),
        }),
      },
    ])
  })
})

describe('the timer handler', () => {
  it("appends a due timer's events as A2 (reserved IDs allowed) and wakes the lanes", async () => {
    const { assistant, handlers, woken } = setup()
    // What session.schedule() derives for a timer's events without IDs (a
    // new input keeps its message ID instead, so the sample is a control).
    const [event] = inputs.resume()
    const events = [
      { ...(event as { type: string; payload: unknown }), id: 'a2.ai:timer:reminder:0' },
    ]
    const body = timerMessageBody({ sessionId: 's1', name: 'reminder', at: 1, events })
    const first = await handlers.timers({ Records: [sqsRecord(body)] })
    const twice = await handlers.timers({ Records: [sqsRecord(body)] })
    expect([first.batchItemFailures, twice.batchItemFailures]).toEqual([[], []])
    expect((await assistant.runtime.log.session('s1').read()).map((event) => event.id)).toEqual([
      'a2.ai:timer:reminder:0',
    ])
    expect(woken).toContainEqual(expect.objectContaining({ sessionId: 's1', lane: 'admission' }))
  })

  it('drops a timer set on a session whose log is gone (erased or expired since): nothing appended, the message done, a warning', async () => {
    const warnings: string[] = []
    const { assistant, handlers } = setup(undefined, silent, undefined, {
      ...silent,
      warn: (line: string) => void warnings.push(line),
    })
    const [event] = inputs.resume()
    const events = [
      { ...(event as { type: string; payload: unknown }), id: 'a2.ai:timer:reminder:0' },
    ]
    const setIn = { firstId: 'erased-1', firstAt: 1 }
    const timer = { sessionId: 's1', name: 'reminder', at: 1, events, setIn }
    const late = await handlers.timers({ Records: [sqsRecord(timerMessageBody(timer))] })
    expect(late.batchItemFailures).toEqual([])
    expect(await assistant.runtime.log.session('s1').read()).toEqual([])
    expect(warnings).toEqual([
      'a2: timer "reminder" of session s1 dropped: the session has no log (erased or expired)',
    ])

    // The same timer into a session that still has its log fires, once.
    const [first] = await assistant.session('s2').append(...inputs.resume())
    const s2 = { firstId: first?.id as string, firstAt: first?.timestamp as number }
    const body = timerMessageBody({ ...timer, sessionId: 's2', setIn: s2 })
    const fired = await handlers.timers({ Records: [sqsRecord(body), sqsRecord(body)] })
    expect(fired.batchItemFailures).toEqual([])
    expect((await assistant.runtime.log.session('s2').read()).map((stored) => stored.id)).toEqual([
      expect.any(String),
      'a2.ai:timer:reminder:0',
    ])
  })

  it('fails a message that is not a timer', async () => {
    const { handlers } = setup()
    const result = await handlers.timers({ Records: [sqsRecord('{"kind":"other"}')] })
    expect(result.batchItemFailures).toHaveLength(1)
  })
})

/** Handlers whose invocations record into `invocation`, over an agent whose own figures go to `own`. */
function meteredHandlers() {
  const own: string[] = []
  const invocation: string[] = []
  const assistant = agent({
    name: 'support-agent',
    model: scriptedModel([]).model,
    logger: silent,
    dispatcher: { wake: async () => {} },
    metrics: { record: (metric) => void own.push(metric) },
  })
  const handlers = pipelineHandlers(
    { default: assistant },
    {
      environment,
      logger: silent,
      auth: { type: 'none' },
      sqs: fakeClient().client,
      httpResponseStream: { from: (stream) => stream },
      metrics: { record: (metric) => void invocation.push(metric), flush: () => {} },
    },
  )
  return { own, invocation, assistant, handlers }
}

describe('the ingress and timer handlers: metrics', () => {
  it("count their appends into the invocation's metrics (the sink the lane handlers use), not the agent's own", async () => {
    const { own, invocation, assistant, handlers } = meteredHandlers()
    const events = inputs.message({
      id: 'msg-m',
      role: 'user',
      parts: [{ type: 'text', text: 'hi' }],
    })
    const ingress = await handlers.ingress({
      Records: [sqsRecord(JSON.stringify({ sessionId: 's1', events }), 's1')],
    })
    const [resume] = inputs.resume()
    const appended = await assistant.runtime.log.session('s1').read()
    const [stored] = appended
    const timer = timerMessageBody({
      sessionId: 's1',
      name: 'reminder',
      at: 1,
      events: [{ ...(resume as { type: string; payload: unknown }), id: 'a2.ai:timer:reminder:0' }],
      setIn: { firstId: 'msg-m', firstAt: stored?.timestamp as number },
    })
    const fired = await handlers.timers({ Records: [sqsRecord(timer)] })
    expect([ingress.batchItemFailures, fired.batchItemFailures]).toEqual([[], []])
    expect((await assistant.runtime.log.session('s1').read()).length).toBe(appended.length + 1)
    // The ingress append carries the turn's start (its decision), the timer's append none.
    expect(invocation).toEqual(['Appends', 'TurnsStarted', 'Appends'])
    expect(own).toEqual([])
  })
})

describe('the HTTP handler', () => {
  const event = (overrides: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
    ({
      httpMethod: 'GET',
      path: '/agent',
      headers: { Host: 'abc.execute-api.us-east-1.amazonaws.com' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      body: null,
      isBase64Encoded: false,
      ...overrides,
    }) as APIGatewayProxyEvent
  /** A POST of `events` to session s1, as API Gateway hands it over. */
  const pushOf = (events: unknown[]): APIGatewayProxyEvent =>
    event({
      httpMethod: 'POST',
      queryStringParameters: { sessionId: 's1' },
      headers: { Host: 'h', 'content-type': 'application/json' },
      body: JSON.stringify({ events }),
    })

  it('turns a REST proxy event into a Request: method, URL, repeated query values, headers, base64 body', async () => {
    const request = requestFromApiGatewayEvent(
      event({
        httpMethod: 'POST',
        multiValueQueryStringParameters: { sessionId: ['s1'], tag: ['a', 'b'] },
        queryStringParameters: { sessionId: 's1', tag: 'b' },
        multiValueHeaders: { 'Last-Event-ID': ['4'] },
        body: Buffer.from('{"events":[]}').toString('base64'),
        isBase64Encoded: true,
      }),
    )
    expect(request.method).toBe('POST')
    expect(request.url).toBe(
      'https://abc.execute-api.us-east-1.amazonaws.com/agent?sessionId=s1&tag=a&tag=b',
    )
    expect(request.headers.get('last-event-id')).toBe('4')
    expect(await request.text()).toBe('{"events":[]}')
  })

  it('refuses an event that is not from API Gateway with MALFORMED_HTTP_EVENT', () => {
    expect(() => requestFromApiGatewayEvent({} as APIGatewayProxyEvent)).toThrow(
      expect.objectContaining({ code: 'MALFORMED_HTTP_EVENT' }),
    )
  })

  it("counts a POST's appends and the turn it starts into the invocation's metrics, not the agent's own", async () => {
    const { own, invocation, handlers } = meteredHandlers()
    const events = inputs.message({
      id: 'm-count',
      role: 'user',
      parts: [{ type: 'text', text: 'hi' }],
    })
    await handlers.http(pushOf(events), new PassThrough(), {
      getRemainingTimeInMillis: () => 60_000,
    } as never)
    // The message decided where it is written: its turn starts in this invocation.
    expect(invocation).toEqual(['Appends', 'TurnsStarted'])
    expect(own).toEqual([])
  })

  it("streams the agent's response: status and headers first, then the body", async () => {
    const { handlers, metadata, assistant } = setup()
    const out = new PassThrough()
    const chunks: Buffer[] = []
    out.on('data', (chunk: Buffer) => chunks.push(chunk))
    const events = inputs.message({
      id: 'm-http',
      role: 'user',
      parts: [{ type: 'text', text: 'hi' }],
    })
    await handlers.http(pushOf(events), out, { getRemainingTimeInMillis: () => 60_000 } as never)
    expect(metadata[0]?.statusCode).toBe(200)
    expect(metadata[0]?.headers?.['content-type']).toContain('application/json')
    // The POST answers with the pushed event; the log also holds its decision.
    const answered = JSON.parse(Buffer.concat(chunks).toString()).events as { id: string }[]
    expect(answered.map((stored) => stored.id)).toEqual(['m-http'])
    const [first] = await assistant.runtime.log.session('s1').read()
    expect(first?.id).toBe('m-http')
  })

  it("answers a push of a server-authored event with the agent's typed 400", async () => {
    const { handlers, metadata } = setup()
    const out = new PassThrough()
    const chunks: Buffer[] = []
    out.on('data', (chunk: Buffer) => chunks.push(chunk))
    await handlers.http(pushOf([{ type: 'ai.generation.completed', payload: {} }]), out, {
      getRemainingTimeInMillis: () => 60_000,
    } as never)
    expect(metadata[0]?.statusCode).toBe(400)
    expect(JSON.parse(Buffer.concat(chunks).toString()).error.code).toBe('SERVER_EVENT_REFUSED')
  })

  /** A logger that keeps the lines the stream logs. */
  const recording = () => {
    const lines: { message: string; extra: Record<string, unknown> }[] = []
    const logger: PipelineLogger = {
      ...silent,
      info: (message, extra) => void lines.push({ message, extra: extra as never }),
    }
    return { logger, lines }
  }
  const streamLines = <Line extends { message: string }>(lines: Line[]) =>
    lines.filter((line) => line.message.startsWith('a2: stream'))

  it('logs one line when a GET stream opens and one when the client leaves, with the session, duration and reason', async () => {
    const { logger, lines } = recording()
    const { handlers } = setup(undefined, logger)
    const out = new PassThrough()
    out.on('data', () => {})
    const handled = handlers.http(event({ queryStringParameters: { sessionId: 'watched' } }), out, {
      getRemainingTimeInMillis: () => 60_000,
    } as never)
    await until(() => lines.length > 0)
    expect(lines).toEqual([{ message: 'a2: stream opened', extra: { sessionId: 'watched' } }])
    out.destroy()
    await handled
    expect(streamLines(lines)).toEqual([
      { message: 'a2: stream opened', extra: { sessionId: 'watched' } },
      {
        message: 'a2: stream ended',
        extra: { sessionId: 'watched', durationMs: expect.any(Number), reason: 'client gone' },
      },
    ])
  })

  it("ends a GET stream before the Lambda deadline and logs 'deadline' as the reason", async () => {
    const { logger, lines } = recording()
    const { handlers } = setup(undefined, logger)
    const out = new PassThrough()
    out.on('data', () => {})
    // 10 s is the margin kept before the deadline: this stream has 50 ms.
    await handlers.http(event({ queryStringParameters: { sessionId: 'late' } }), out, {
      getRemainingTimeInMillis: () => 10_050,
    } as never)
    expect(streamLines(lines).at(-1)).toEqual({
      message: 'a2: stream ended',
      extra: { sessionId: 'late', durationMs: expect.any(Number), reason: 'deadline' },
    })
    expect((streamLines(lines).at(-1)?.extra.durationMs as number) < 5_000).toBe(true)
  })

  it('logs no stream lines for a POST or a refused GET', async () => {
    const { logger, lines } = recording()
    const { handlers } = setup(undefined, logger)
    const out = new PassThrough()
    out.on('data', () => {})
    await handlers.http(
      event({
        httpMethod: 'POST',
        queryStringParameters: { sessionId: 's1' },
        headers: { Host: 'h', 'content-type': 'application/json' },
        body: JSON.stringify({ events: inputs.message(userMessage('m-post', 'hi')) }),
      }),
      out,
      { getRemainingTimeInMillis: () => 60_000 } as never,
    )
    await handlers.http(event({ queryStringParameters: null }), new PassThrough(), {
      getRemainingTimeInMillis: () => 60_000,
    } as never)
    expect(streamLines(lines)).toEqual([])
  })
})
