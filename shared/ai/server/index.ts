// `a2-aws/ai/server`: server-only pieces. For now, the event stores.
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
