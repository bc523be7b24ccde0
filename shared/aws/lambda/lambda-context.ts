import type { Context } from 'aws-lambda'
import type { PipelineHandlers } from './pipeline-handlers.ts'

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
  const tagged = Object.fromEntries(
    Object.entries(handlers).map(([name, handler]) => [
      name,
      name === 'http'
        ? (event: never, stream: never, context: Context) => {
            logger.addContext(context)
            return (handler as PipelineHandlers['http'])(event, stream, context)
          }
        : (event: never, context: Context) => {
            logger.addContext(context)
            return (handler as (event: never, context: Context) => unknown)(event, context)
          },
    ]),
  )
  return tagged as unknown as PipelineHandlers
}
