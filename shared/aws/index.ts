// `a2-aws/aws`: the AWS adapters (SQS FIFO dispatcher, Scheduler timers, the
// stream router) and the Lambda handler factories the A2Agent construct runs.

export {
  type AwsAgentParts,
  type AwsClients,
  type AwsEnvironment,
  awsAgentParts,
  awsClients,
  environmentVariables,
  readAwsEnvironment,
} from './agent-environment.ts'
export { ENVIRONMENT_VARIABLES } from './environment-variables.ts'
export { PipelineError, type PipelineErrorCode } from './errors.ts'
export {
  atExpression,
  type EventBridgeSchedulerOptions,
  eventBridgeScheduler,
  MAX_SQS_DELAY_MS,
  scheduleName,
} from './eventbridge-scheduler.ts'
export { type IndexWatermark, indexWatermark, watchedStore } from './index-watermark.ts'
export { type IngressMessage, parseIngressMessage, sendInputs } from './ingress-message.ts'
export { type PipelineHandlers, pipelineHandlers } from './lambda/pipeline-handlers.ts'
export {
  type IndexedWakeUp,
  type LaneQueueUrls,
  type SqsDispatcherOptions,
  sendWakeUps,
  sqsDispatcher,
} from './sqs-dispatcher.ts'
export { routeStreamRecords, type StreamRouterOptions } from './stream-router.ts'
export { parseTimerMessage, timerMessageBody } from './timer-message.ts'
export {
  parseWakeUpMessage,
  QUEUE_LANES,
  type QueueLane,
  wakeUpMessage,
} from './wake-up-message.ts'
