// `a2-aws/aws`: the AWS adapters of an agent. What it is for:
// - `awsAgentParts()`: the store, dispatcher and scheduler of an agent the
//   `A2Agent` construct deploys, from the environment it sets;
// - the adapters one by one: `dynamoDBEventStore` (and `createEventLogTable`
//   for tests and local tables), `sqsDispatcher` (lane wake-ups on SQS
//   FIFO), `eventBridgeScheduler` (timers on EventBridge Scheduler and SQS);
// - `sendInputs()`: appends to a session through the ingress queue.
// The Lambda handlers the construct runs are its own (`functions/lambda.ts`).

export { createEventLogTable } from '../stores/dynamodb/create-table.ts'
export {
  type DynamoDBEventStoreOptions,
  dynamoDBEventStore,
} from '../stores/dynamodb/dynamodb-event-store.ts'
export { type AwsAgentParts, type AwsClients, awsAgentParts } from './agent-environment.ts'
export type { AwsEnvironment } from './environment-variables.ts'
export type { PipelineErrorCode } from './errors.ts'
export { type EventBridgeSchedulerOptions, eventBridgeScheduler } from './eventbridge-scheduler.ts'
export { type IngressMessage, sendInputs } from './ingress-message.ts'
export { type LaneQueueUrls, type SqsDispatcherOptions, sqsDispatcher } from './sqs-dispatcher.ts'
