import type { Contract } from './contract.ts'
import type { StoredEvent } from './event.ts'

/** A stored event as the current code reads it (contract upcasters applied). Stub until the upcasters land. */
export function upcastEvent<Event extends StoredEvent>(
  _contract: Pick<Contract, 'declares'> | undefined,
  event: Event,
): Event {
  return event
}
