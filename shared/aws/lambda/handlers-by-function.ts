import type {
  APIGatewayProxyEvent,
  Context,
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
} from 'aws-lambda'
import type { QueueFunction } from '../pipeline-functions.ts'
import type { StreamingHandler } from './awslambda.ts'
import type { SqsHandler } from './visibility-lease.ts'

/**
 * The pipeline's handlers, one per function: what the Lambda entry points
 * export and the local runner invokes. Apart from `pipelineHandlers()`,
 * which builds them, so the wrappers around them need not import it.
 */
export interface PipelineHandlers extends Record<QueueFunction, SqsHandler> {
  /** Unwrapped: Lambda needs `awslambda.streamifyResponse(http)`. */
  http: StreamingHandler<APIGatewayProxyEvent>
  router: (event: DynamoDBStreamEvent, context?: Context) => Promise<DynamoDBBatchResponse>
}
