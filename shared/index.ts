// `a2-aws`: the isomorphic core of the event log. Nothing here touches AWS,
// Node I/O or React, so browsers, Lambda handlers and servers share it.
export { canonicalJson } from './log/canonical-json.ts'
export {
  type Contract,
  type ContractDefinition,
  type ContractEvent,
  type ContractEventInput,
  type ContractEvents,
  contract,
} from './log/contract.ts'
export { type A2Code, hasA2Code } from './log/error-brand.ts'
export {
  A2Error,
  type A2ErrorCode,
  AppendConflictError,
  AppendContendedError,
  BatchTooLargeError,
  ClaimHeldError,
  CursorConflictError,
  EventTooLargeError,
  FencedOutError,
  InvalidEventError,
  InvalidSessionIdError,
  PartialDuplicateBatchError,
  ReservedEventIdError,
} from './log/errors.ts'
export {
  type EventInput,
  isReservedId,
  type NewEvent,
  RESERVED_ID_PREFIX,
  type StoredEvent,
} from './log/event.ts'
export {
  DEFAULT_SNAPSHOT_EVERY,
  type EventLog,
  type EventLogOptions,
  eventLog,
  type SessionAppendOptions,
  type SessionLog,
} from './log/event-log.ts'
export type {
  AppendOptions,
  AppendResult,
  Claim,
  ClaimOptions,
  EventStore,
  ReadOptions,
  StoredSnapshot,
  TailOptions,
} from './log/event-store.ts'
export {
  MAX_APPEND_BYTES,
  MAX_EVENT_BYTES,
  MAX_EVENTS_PER_APPEND,
  MAX_ID_LENGTH,
  MAX_PAYLOAD_DEPTH,
  MAX_TYPE_LENGTH,
} from './log/limits.ts'
export { foldEvents, type Reducer, type StateSnapshot } from './log/reducer.ts'
