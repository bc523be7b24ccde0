import type { EventUpcasts } from '../../log/versioned-event.ts'

/**
 * A2's own upcaster registry: for each `ai.*` event type whose schema a
 * package version has changed, its current version and the upcasters from
 * the older ones (see `versionedEvent`). Empty: no `ai.*` schema has changed
 * in a way that needs one yet. When one does, add the type here with its
 * new version; the log stamps that version on new events, and every
 * reader (the log's `read`, `tail` and `state`, the session reducer on the
 * server and in the browser) upcasts older events as it reads them.
 *
 * Schema-free on purpose: the browser folds by it without loading the event
 * schemas; the server checks each result against `AI_EVENTS`
 * (`aiEventDefinitions`).
 */
export const AI_EVENT_UPCASTS: EventUpcasts = {}
