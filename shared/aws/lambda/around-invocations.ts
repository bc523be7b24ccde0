import { QUEUE_FUNCTION_NAMES } from '../pipeline-functions.ts'
import type { PipelineHandlers } from './handlers-by-function.ts'
import type { SqsHandler } from './visibility-lease.ts'

/** Runs one invocation of the handler `name` (`run`), with something around it. */
export type AroundInvocation = <T>(name: string, run: () => Promise<T>) => Promise<T>

/** The pipeline's handlers, each invocation run through `around` (flushing metrics, tracing). */
export function aroundEachInvocation(
  handlers: PipelineHandlers,
  around: AroundInvocation,
): PipelineHandlers {
  const queue =
    (name: string, handler: SqsHandler): SqsHandler =>
    (event, context) =>
      around(name, () => handler(event, context))
  const wrapped: PipelineHandlers = {
    ...handlers,
    http: (event, stream, context) => around('http', () => handlers.http(event, stream, context)),
    router: (event, context) => around('router', () => handlers.router(event, context)),
  }
  for (const name of QUEUE_FUNCTION_NAMES) wrapped[name] = queue(name, handlers[name])
  return wrapped
}
