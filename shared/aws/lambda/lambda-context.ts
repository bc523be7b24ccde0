import type { Context } from 'aws-lambda'
import { QUEUE_FUNCTION_NAMES } from '../pipeline-functions.ts'
import type { PipelineHandlers } from './handlers-by-function.ts'
import type { SqsHandler } from './visibility-lease.ts'

/** What Powertools' Logger offers to tag every line of an invocation. */
export interface ContextLogger {
  addContext(context: Context): void
}

/**
 * The pipeline's handlers, each first giving the invocation's Lambda context
 * to the logger (`logger.addContext`), so every line it writes carries the
 * function name, request ID and cold start, as Powertools' middleware does.
 */
export function withLambdaContext(
  logger: ContextLogger,
  handlers: PipelineHandlers,
): PipelineHandlers {
  const tag = (context: Context | undefined): void => {
    if (context) logger.addContext(context)
  }
  const queue =
    (handler: SqsHandler): SqsHandler =>
    (event, context) => {
      tag(context)
      return handler(event, context)
    }
  const tagged: PipelineHandlers = {
    ...handlers,
    http: (event, stream, context) => {
      tag(context)
      return handlers.http(event, stream, context)
    },
    router: (event, context) => {
      tag(context)
      return handlers.router(event)
    },
  }
  for (const name of QUEUE_FUNCTION_NAMES) tagged[name] = queue(handlers[name])
  return tagged
}
