import { aroundEachInvocation } from './around-invocations.ts'
import type { PipelineHandlers } from './handlers-by-function.ts'

interface TraceSegment {
  addNewSubsegment(name: string): TraceSubsegment
}
interface TraceSubsegment extends TraceSegment {
  close(): void
}

/** What the handlers use of Powertools' Tracer (the real one, or a test's). */
export interface InvocationTracer {
  /** False outside Lambda and when `POWERTOOLS_TRACE_ENABLED` is false (the construct's `tracing: false`). */
  isTracingEnabled(): boolean
  getSegment(): TraceSegment | undefined
  setSegment(segment: TraceSegment): void
  annotateColdStart(): void
  addServiceNameAnnotation(): void
  addErrorAsMetadata(error: Error): void
}

/**
 * The pipeline's handlers, each invocation in an X-Ray subsegment
 * `## <handler>` annotated with the cold start and service, its error as
 * metadata: Powertools' manual instrumentation, since the handlers are plain
 * functions. The Tracer instruments outgoing HTTPS calls itself (DynamoDB,
 * SQS, the model provider), so they appear inside it.
 */
export function withTracing(
  tracer: InvocationTracer,
  handlers: PipelineHandlers,
): PipelineHandlers {
  if (!tracer.isTracingEnabled()) return handlers
  return aroundEachInvocation(handlers, async (name, run) => {
    const segment = tracer.getSegment()
    const subsegment = segment?.addNewSubsegment(`## ${name}`)
    if (subsegment) tracer.setSegment(subsegment)
    tracer.annotateColdStart()
    tracer.addServiceNameAnnotation()
    try {
      return await run()
    } catch (error) {
      tracer.addErrorAsMetadata(error instanceof Error ? error : new Error(String(error)))
      throw error
    } finally {
      subsegment?.close()
      if (segment) tracer.setSegment(segment)
    }
  })
}
