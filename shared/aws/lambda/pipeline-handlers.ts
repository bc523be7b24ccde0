import type {
  APIGatewayProxyEvent,
  Context,
  DynamoDBBatchResponse,
  DynamoDBStreamEvent,
  SQSBatchResponse,
  SQSEvent,
} from 'aws-lambda'
import { type AwsEnvironment, awsClients } from '../agent-environment.ts'
import type { AwsLambdaGlobal, StreamingHandler } from './awslambda.ts'
import { httpHandler } from './http-handler.ts'
import { ingressHandler, timerHandler } from './ingress-handler.ts'
import { laneHandler } from './lane-handler.ts'
import { agentFromModule, authorizeFromModule, type PipelineLogger } from './pipeline-agent.ts'
import { routerHandler } from './router-handler.ts'

type SqsHandler = (event: SQSEvent, context?: Context) => Promise<SQSBatchResponse>

export interface PipelineHandlers {
  /** Unwrapped: Lambda needs `awslambda.streamifyResponse(http)`. */
  http: StreamingHandler<APIGatewayProxyEvent>
  router: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse>
  admission: SqsHandler
  generation: SqsHandler
  tools: SqsHandler
  handlers: SqsHandler
  ingress: SqsHandler
  timers: SqsHandler
}

/**
 * Every function of the pipeline for one agent module: what the Lambda entry
 * points in `functions/` export, and what the local runner invokes.
 */
export function pipelineHandlers(
  agentModule: Record<string, unknown>,
  options: {
    environment: Pick<AwsEnvironment, 'queueUrls' | 'endpoint' | 'agentExport' | 'maxReceiveCount'>
    logger: PipelineLogger
    httpResponseStream: AwsLambdaGlobal['HttpResponseStream']
    sqs?: ReturnType<typeof awsClients>['sqs']
  },
): PipelineHandlers {
  const agent = agentFromModule(agentModule, options.environment.agentExport)
  const { logger } = options
  const authorize = authorizeFromModule(agentModule)
  let sqs = options.sqs
  const lanes = { logger, maxReceiveCount: options.environment.maxReceiveCount }
  return {
    http: httpHandler(agent, {
      logger,
      httpResponseStream: options.httpResponseStream,
      ...(authorize ? { authorize } : {}),
    }),
    router: (event) => {
      sqs ??= awsClients(options.environment).sqs
      return routerHandler(
        agent as never,
        { client: sqs, queueUrls: options.environment.queueUrls },
        logger,
      )(event)
    },
    admission: laneHandler(agent, 'admission', lanes),
    generation: laneHandler(agent, 'generation', lanes),
    tools: laneHandler(agent, 'tools', lanes),
    handlers: laneHandler(agent, 'handlers', lanes),
    ingress: ingressHandler(agent, logger),
    timers: timerHandler(agent, logger),
  }
}
