import { describe, expect, it } from 'vitest'
import { agent } from '../../../../shared/agent/index.ts'
import type { RunOptions } from '../../../../shared/agent/wiring/agent.ts'
import type { PipelineHandlers } from '../../../../shared/aws/lambda/handlers-by-function.ts'
import {
  type InvocationTracer,
  withTracing,
} from '../../../../shared/aws/lambda/invocation-tracing.ts'
import { pipelineHandlers } from '../../../../shared/aws/lambda/pipeline-handlers.ts'
import { DONE, type RunOutcome } from '../../../../shared/runtime/wake-up.ts'
import { scriptedModel } from '../../../../shared/testing/scripted-model.ts'
import { fakeClient } from '../../../support/fake-clients.ts'
import { environment, silent } from '../../../support/pipeline-fixture.ts'

/** A tracer that writes down what Powertools' would do to the X-Ray segments. */
function recordingTracer(enabled = true) {
  const calls: string[] = []
  const names = new Map<object, string>()
  const segment = (name: string) => {
    const created = {
      addNewSubsegment(child: string) {
        calls.push(`open ${child}`)
        return Object.assign(segment(child), { close: () => void calls.push(`close ${child}`) })
      },
    }
    names.set(created, name)
    return created
  }
  const facade = segment('facade')
  const tracer: InvocationTracer = {
    isTracingEnabled: () => enabled,
    getSegment: () => facade,
    setSegment: (current) => void calls.push(`active ${names.get(current)}`),
    annotateColdStart: () => void calls.push('annotate cold start'),
    addServiceNameAnnotation: () => void calls.push('annotate service'),
    addErrorAsMetadata: (error) => void calls.push(`error ${error.message}`),
  }
  return { tracer, calls }
}

function handlersRunning(
  run: (wakeUp: unknown, options?: RunOptions) => Promise<unknown>,
  modelTelemetry?: boolean,
) {
  const assistant = agent({
    name: 'support-agent',
    model: scriptedModel([]).model,
    logger: silent,
    dispatcher: { wake: async () => {} },
  })
  const runtime = assistant.runtime as {
    run: (wakeUp: unknown, options?: RunOptions) => Promise<RunOutcome>
  }
  runtime.run = async (wakeUp, options) => {
    await run(wakeUp, options)
    return DONE
  }
  return pipelineHandlers(
    { default: assistant },
    {
      environment,
      logger: silent,
      auth: { type: 'none' },
      sqs: fakeClient().client,
      httpResponseStream: { from: (stream) => stream },
      ...(modelTelemetry === undefined ? {} : { modelTelemetry }),
    },
  )
}

const wakeUp = (sessionId: string) =>
  ({
    messageId: sessionId,
    receiptHandle: sessionId,
    body: JSON.stringify({ sessionId, lane: 'admission' }),
    attributes: { ApproximateReceiveCount: '1', MessageGroupId: sessionId },
    messageAttributes: {},
  }) as never

describe('tracing the functions', () => {
  it('runs each invocation in a "## <handler>" subsegment annotated with the cold start and service, then restores the facade', async () => {
    const { tracer, calls } = recordingTracer()
    const traced = withTracing(
      tracer,
      handlersRunning(async () => {}),
    )
    await traced.admission({ Records: [wakeUp('s1')] })
    expect(calls).toEqual([
      'open ## admission',
      'active ## admission',
      'annotate cold start',
      'annotate service',
      'close ## admission',
      'active facade',
    ])
  })

  it('records a failed invocation as an error on its subsegment, and still closes it', async () => {
    const { tracer, calls } = recordingTracer()
    const handlers = handlersRunning(async () => {})
    const failing: PipelineHandlers = {
      ...handlers,
      router: async () => {
        throw new Error('stream gone')
      },
    }
    await expect(withTracing(tracer, failing).router({ Records: [] })).rejects.toThrow(
      'stream gone',
    )
    expect(calls.slice(-3)).toEqual(['error stream gone', 'close ## router', 'active facade'])
  })

  it('leaves the handlers alone when tracing is off', () => {
    const { tracer } = recordingTracer(false)
    const handlers = handlersRunning(async () => {})
    expect(withTracing(tracer, handlers)).toBe(handlers)
  })
})

describe("the AI SDK's telemetry on Lambda", () => {
  it("is turned on for the lanes' runs by the pipeline switch, and left to the agent otherwise", async () => {
    const seen: (boolean | undefined)[] = []
    const run = async (_wakeUp: unknown, options?: RunOptions) => void seen.push(options?.telemetry)
    await handlersRunning(run, true).admission({ Records: [wakeUp('on')] })
    await handlersRunning(run).admission({ Records: [wakeUp('default')] })
    expect(seen).toEqual([true, undefined])
  })
})
