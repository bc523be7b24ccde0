import { PassThrough } from 'node:stream'
import type { APIGatewayProxyEvent, SQSRecord } from 'aws-lambda'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import { inputs } from '../../../../shared/ai.ts'
import { cloudWatchMetrics } from '../../../../shared/aws/lambda/cloudwatch-metrics.ts'
import { pipelineHandlers } from '../../../../shared/aws/lambda/pipeline-handlers.ts'
import type { WakeUp } from '../../../../shared/runtime/wake-up.ts'
import { scriptedModel, text } from '../../../../shared/testing/scripted-model.ts'
import { track, userMessage } from '../../../support/agent-log.ts'
import { fakeClient } from '../../../support/fake-clients.ts'
import { environment, silent } from '../../../support/pipeline-fixture.ts'

type Emf = {
  _aws: {
    Timestamp: number
    CloudWatchMetrics: {
      Namespace: string
      Dimensions: string[][]
      Metrics: { Name: string; Unit: string }[]
    }[]
  }
} & Record<string, unknown>

/** What the handlers write to stdout, as the EMF lines CloudWatch Logs would read. */
function capturedEmf() {
  const lines: string[] = []
  const write = process.stdout.write.bind(process.stdout)
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk, ...rest) => {
    const line = String(chunk)
    if (line.includes('"_aws"')) {
      lines.push(line)
      return true
    }
    return write(chunk as never, ...(rest as []))
  })
  return () => lines.map((line) => JSON.parse(line) as Emf)
}

afterEach(() => void vi.restoreAllMocks())

function setup(from: (stream: never) => never = (stream) => stream) {
  const woken: WakeUp[] = []
  const assistant = track(
    agent({
      name: 'support-agent',
      model: scriptedModel([text('Hi there.')]).model,
      logger: silent,
      dispatcher: { wake: async (wakeUps) => void woken.push(...wakeUps) },
    }),
  )
  const handlers = pipelineHandlers(
    { default: assistant },
    {
      environment,
      logger: silent,
      auth: { type: 'none' },
      sqs: fakeClient().client,
      httpResponseStream: { from },
      metrics: cloudWatchMetrics({ namespace: 'Test/A2', service: 'Test/Support' }),
    },
  )
  return { assistant, handlers, woken }
}

let messageId = 0
function wakeUpRecord(wakeUp: WakeUp, sentAt: number, receiveCount = 1): SQSRecord {
  messageId++
  return {
    messageId: `m${messageId}`,
    receiptHandle: `r${messageId}`,
    body: JSON.stringify(wakeUp),
    attributes: {
      ApproximateReceiveCount: String(receiveCount),
      SentTimestamp: String(sentAt),
      SenderId: 'x',
      ApproximateFirstReceiveTimestamp: String(sentAt),
      MessageGroupId: wakeUp.sessionId,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:q.fifo',
    awsRegion: 'us-east-1',
  }
}

const getStream = (sessionId: string): APIGatewayProxyEvent =>
  ({
    httpMethod: 'GET',
    path: '/agent',
    headers: { Host: 'abc.execute-api.us-east-1.amazonaws.com' },
    multiValueHeaders: {},
    queryStringParameters: { sessionId },
    multiValueQueryStringParameters: null,
    body: null,
    isBase64Encoded: false,
  }) as unknown as APIGatewayProxyEvent

/** One EMF line's values by metric name (a name recorded twice is an array). */
function valuesOf(line: Emf | undefined): Record<string, unknown> {
  const names = line?._aws.CloudWatchMetrics[0]?.Metrics.map((metric) => metric.Name) ?? []
  return Object.fromEntries(names.map((name) => [name, line?.[name]]))
}
const unitsOf = (line: Emf | undefined): Record<string, string> =>
  Object.fromEntries(
    line?._aws.CloudWatchMetrics[0]?.Metrics.map((metric) => [metric.Name, metric.Unit]) ?? [],
  )

describe('the functions’ CloudWatch metrics (EMF)', () => {
  it('writes one EMF line per lane invocation: the turn, its appends and the wake-up latency, in the namespace with the service dimension', async () => {
    const emf = capturedEmf()
    const { assistant, handlers, woken } = setup()
    // Written undecided (the log's own append), so the admission lane decides it.
    await assistant.runtime.log.session('s1').append(inputs.message(userMessage('m1', 'Hello?')))
    const admission: WakeUp = { sessionId: 's1', lane: 'admission' }
    await handlers.admission({ Records: [wakeUpRecord(admission, Date.now() - 1_500)] })

    const [line, ...more] = emf()
    expect(more).toEqual([])
    expect(line?._aws.CloudWatchMetrics[0]?.Namespace).toBe('Test/A2')
    expect(line?._aws.CloudWatchMetrics[0]?.Dimensions).toEqual([['service']])
    expect(line?.service).toBe('Test/Support')
    // The agent's version as EMF metadata (no dimension: a deploy adds no metrics).
    expect(line?.agentVersion).toBe(assistant.version)
    expect(line?.agentVersion).toMatch(/^[0-9a-f]{12}$/)
    const values = valuesOf(line)
    expect(values.TurnsStarted).toBe(1)
    expect(values.Appends).toBeGreaterThanOrEqual(1)
    expect(values.WakeUpLatency).toBeGreaterThanOrEqual(1_500)
    expect(values.WakeUpLatency).toBeLessThan(60_000)
    expect(unitsOf(line)).toMatchObject({
      TurnsStarted: 'Count',
      Appends: 'Count',
      WakeUpLatency: 'Milliseconds',
    })

    // The generation lane's invocation: its own line, with the model's figures.
    const generation = woken.find((wakeUp) => wakeUp.lane === 'generation') as WakeUp
    await handlers.generation({ Records: [wakeUpRecord(generation, Date.now())] })
    const generated = emf()[1]
    expect(valuesOf(generated)).toMatchObject({
      OutputTokens: expect.any(Number),
      InputTokens: expect.any(Number),
      TimeToFirstToken: expect.any(Number),
    })
    expect(unitsOf(generated).TimeToFirstToken).toBe('Milliseconds')
    expect(valuesOf(generated).TurnsStarted).toBeUndefined()
  })

  it('measures wake-up latency on first receives only: a redelivery measures its backoff', async () => {
    const emf = capturedEmf()
    const { handlers } = setup()
    await handlers.admission({
      Records: [wakeUpRecord({ sessionId: 'quiet', lane: 'admission' }, Date.now() - 90_000, 2)],
    })
    expect(emf().flatMap((line) => Object.keys(valuesOf(line)))).not.toContain('WakeUpLatency')
  })

  it('writes the line even when the invocation fails', async () => {
    const emf = capturedEmf()
    const { handlers } = setup(() => {
      throw new Error('response stream gone')
    })
    await expect(
      handlers.http(getStream('broken'), new PassThrough(), {
        getRemainingTimeInMillis: () => 60_000,
      } as never),
    ).rejects.toThrow('response stream gone')
    expect(valuesOf(emf()[0])).toMatchObject({ StreamsOpened: 1, StreamsEnded: 1 })
  })

  it('counts the dead letter a lane records on its last receive', async () => {
    const emf = capturedEmf()
    const { assistant, handlers } = setup()
    assistant.runtime.run = async () => {
      throw new Error('model down')
    }
    await handlers.generation({
      Records: [wakeUpRecord({ sessionId: 'poison', lane: 'generation' }, Date.now(), 3)],
    })
    expect(valuesOf(emf()[0])).toMatchObject({ DeadLetters: 1, Appends: 1 })
  })

  it('writes nothing for an invocation that recorded nothing, and warns nothing', async () => {
    const emf = capturedEmf()
    const warnings: string[] = []
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      warnings.push(String(chunk))
      return true
    })
    const { handlers } = setup()
    await handlers.router({ Records: [] })
    expect(emf()).toEqual([])
    expect(warnings.join('')).not.toContain('No application metrics')
  })

  it('counts a GET stream when it opens, and when it ends with how long it was open', async () => {
    const emf = capturedEmf()
    const { handlers } = setup()
    const out = new PassThrough()
    out.on('data', () => {})
    // 10 s is the margin kept before the deadline: this stream has 50 ms.
    await handlers.http(getStream('watched'), out, {
      getRemainingTimeInMillis: () => 10_050,
    } as never)
    const [line] = emf()
    expect(valuesOf(line)).toEqual({
      StreamsOpened: 1,
      StreamsEnded: 1,
      StreamDuration: expect.any(Number),
    })
    expect(valuesOf(line).StreamDuration).toBeGreaterThanOrEqual(40)
    expect(unitsOf(line)).toEqual({
      StreamsOpened: 'Count',
      StreamsEnded: 'Count',
      StreamDuration: 'Milliseconds',
    })
  })
})
