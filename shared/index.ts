// `a2-aws`: the event log. What it is for:
// - events and app contracts (`contract`), event schemas that evolve
//   (`versionedEvent`, `upcastEvent`), reducers and their fold
//   (`foldEvents`), the log over a store (`eventLog`);
// - the `EventStore` port, to plug in or write a store, and the embedded
//   `memoryEventStore` (the DynamoDB store is in `a2-aws/aws`; the suite a
//   store must pass is in `a2-aws/test`);
// - the log's fetch endpoint (`logEndpoint`, errors as `HttpError`) and its
//   access checks (`sessionCapability`, `allOf`);
// - the limits every store enforces, the typed errors and `hasA2Code`, the
//   one way to recognise them.
// No AWS SDK, React or agent runtime. Server-side: the memory store
// measures payloads gzipped (`node:zlib`); browser code imports
// `a2-aws/ai/client`, which exports `hasA2Code` too.

export { SessionActiveError } from './agent/session/session-active-error.ts'
export { allOf } from './http/all-of.ts'
export { HttpError, type HttpErrorCode } from './http/http-error.ts'
export {
  type Authenticate,
  type Authorize,
  type FetchOptions,
  type LogEndpointOptions,
  logEndpoint,
  type OpenedSession,
  type Operation,
} from './http/log-endpoint.ts'
export type { Principal } from './http/principal.ts'
export {
  type CapabilityKey,
  DEFAULT_CAPABILITY_TTL_SECONDS,
  type SessionCapability,
  type SessionCapabilityOptions,
  sessionCapability,
} from './http/session-capability.ts'
export { claimKeyOfLife } from './log/claim-key.ts'
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
  type A2ErrorCode,
  AppendConflictError,
  AppendContendedError,
  BatchTooLargeError,
  ClaimHeldError,
  CursorConflictError,
  EraseContendedError,
  EventTooLargeError,
  FencedOutError,
  InvalidEventError,
  InvalidExportError,
  InvalidSessionIdError,
  LifeEndedError,
  PartialDuplicateBatchError,
  ReservedEventIdError,
  SessionNotEmptyError,
  UpcastError,
} from './log/errors.ts'
export type { EventInput, NewEvent, StoredEvent } from './log/event.ts'
export {
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
  EraseReceipt,
  EventStore,
  ReadOptions,
  RestingHead,
  StoredSnapshot,
  TailOptions,
} from './log/event-store.ts'
export { ERASED_ITEM_KINDS } from './log/event-store.ts'
export {
  MAX_APPEND_BYTES,
  MAX_EVENT_BYTES,
  MAX_EVENTS_PER_APPEND,
  MAX_PAYLOAD_DEPTH,
} from './log/limits.ts'
export { foldEvents, type Reducer, type StateSnapshot } from './log/reducer.ts'
export {
  type ExportedSnapshot,
  type ExportOptions,
  exportSession,
  type ImportOptions,
  importSession,
  parseSessionExport,
} from './log/session-export.ts'
export { type UpcastContract, upcastEvent } from './log/upcast.ts'
export {
  type EventDefinition,
  type EventSchemaOf,
  type Upcaster,
  type Upcasters,
  type VersionedEvent,
  versionedEvent,
} from './log/versioned-event.ts'
export {
  type MemoryEventStoreOptions,
  memoryEventStore,
} from './stores/memory/memory-event-store.ts'
