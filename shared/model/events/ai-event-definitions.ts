import type { EventDefinition, EventUpcasts } from '../../log/versioned-event.ts'
import { withUpcasts } from '../../log/versioned-event.ts'
import { AI_EVENT_UPCASTS } from './ai-event-upcasts.ts'
import { AI_EVENTS, type AIEventType } from './ai-events.ts'

/**
 * A2's events as a contract declares them on the server: `AI_EVENTS`'
 * schemas, versioned by A2's upcaster registry (a test passes its own).
 */
export function aiEventDefinitions(
  upcasts: EventUpcasts = AI_EVENT_UPCASTS,
): Record<AIEventType, EventDefinition> {
  return withUpcasts(AI_EVENTS, upcasts)
}
