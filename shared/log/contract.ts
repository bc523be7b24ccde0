import type { z } from 'zod'
import { InvalidEventError } from './errors.ts'
import type { EventInput, StoredEvent } from './event.ts'
import type { Reducer } from './reducer.ts'
import { type EventDefinition, type EventSchemaOf, schemaOf } from './versioned-event.ts'

/**
 * Event types mapped to the zod schemas of their payloads: a plain schema
 * (version 1), or a `versionedEvent()` with upcasters from older versions.
 */
export type ContractEvents = Record<string, EventDefinition>

/** The stored events a contract declares, as a union discriminated by `type`. */
export type ContractEvent<Events extends ContractEvents> = {
  [Type in keyof Events & string]: StoredEvent<Type, z.output<EventSchemaOf<Events[Type]>>>
}[keyof Events & string]

/** What a caller may submit for a contract: its declared events, typed. */
export type ContractEventInput<Events extends ContractEvents> = {
  [Type in keyof Events & string]: EventInput<Type, z.input<EventSchemaOf<Events[Type]>>>
}[keyof Events & string]

export interface ContractDefinition<Events extends ContractEvents, State> {
  name: string
  events: Events
  /**
   * Folds the session's state. It sees every event of the session, also
   * those the contract does not declare, so it must return `state` unchanged
   * for types it does not know.
   */
  reducer?: Reducer<State, ContractEvent<Events>>
}

export interface Contract<Events extends ContractEvents = ContractEvents, State = unknown>
  extends ContractDefinition<Events, State> {
  /**
   * Validates an event of a declared type against its (current) schema and returns it
   * with the parsed payload; an event of an undeclared type is returned as is.
   * Throws `InvalidEventError` naming the type and the failing path. A
   * contract may also fill in a missing ID the event's content determines;
   * the log checks it like a caller's.
   */
  validate<Event extends EventInput>(event: Event): Event
  /** Whether the contract declares this event type. */
  declares(type: string): boolean
}

/**
 * Declares a session's events and, optionally, the reducer that folds them.
 *
 * @example
 * const todos = contract({
 *   name: 'todos',
 *   events: { 'todo.added': z.object({ title: z.string() }) },
 *   reducer: {
 *     name: 'todos.v1',
 *     initialState: [] as string[],
 *     fold: (state, event) =>
 *       event.type === 'todo.added' ? [...state, event.payload.title] : state,
 *   },
 * })
 */
export function contract<Events extends ContractEvents, State = never>(
  definition: ContractDefinition<Events, State>,
): Contract<Events, State> {
  const { events } = definition
  return {
    ...definition,
    declares: (type) => Object.hasOwn(events, type),
    validate(event) {
      if (!Object.hasOwn(events, event.type)) return event
      const schema = schemaOf(events[event.type] as EventDefinition)
      const result = schema.safeParse(event.payload)
      if (!result.success) {
        throw new InvalidEventError(
          event.type,
          result.error.issues.map((issue) => ({
            path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
            message: issue.message,
          })),
        )
      }
      return { ...event, payload: result.data }
    },
  }
}
