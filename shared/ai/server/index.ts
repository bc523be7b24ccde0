// `a2-aws/ai/server`: server-only pieces (Node). For now, the event stores
// and the HTTP endpoint of a session log.

export { HttpError, type HttpErrorCode } from '../../http/http-error.ts'
export {
  type Authorize,
  type FetchOptions,
  type LogEndpointOptions,
  logEndpoint,
  type Operation,
} from '../../http/log-endpoint.ts'
export { createEventLogTable } from '../../stores/dynamodb/create-table.ts'
export {
  type DynamoDBEventStoreOptions,
  dynamoDBEventStore,
} from '../../stores/dynamodb/dynamodb-event-store.ts'
export {
  type MemoryEventStoreOptions,
  memoryEventStore,
} from '../../stores/memory/memory-event-store.ts'
export {
  COMPRESS_ABOVE_BYTES,
  MAX_APPEND_BYTES,
  MAX_EVENT_BYTES,
  MAX_EVENTS_PER_APPEND,
} from '../../stores/payload-codec.ts'
