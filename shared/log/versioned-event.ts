import type { z } from 'zod'

/**
 * Turns a payload of one schema version into a payload of the next. It
 * receives what the log holds (old payloads were checked by the schema of
 * their day, never by today's), so type its parameter as that version's
 * payload.
 */
// biome-ignore lint/suspicious/noExplicitAny: an upcaster's input is the old payload, which only its author can type
export type Upcaster = (payload: any) => unknown

/**
 * Upcasters by the version they read: `upcast[1]` turns a version-1 payload
 * into a version-2 one, `upcast[2]` a version-2 one into version 3, ...
 */
export type Upcasters = Readonly<Record<number, Upcaster>>

/** An event type's current schema, its version, and the upcasters from older versions. */
export interface VersionedEvent<Schema extends z.ZodType = z.ZodType> {
  readonly kind: 'a2.versioned-event'
  /** The current schema version (a plain zod schema is version 1). */
  readonly version: number
  /** The current version's schema: what appends are validated against, and upcasts end in. */
  readonly schema: Schema
  readonly upcast: Upcasters
}

/** What a contract declares for an event type: a plain schema (version 1), or a versioned one. */
export type EventDefinition = z.ZodType | VersionedEvent

/** The current schema of an event definition, as a type. */
export type EventSchemaOf<Definition> =
  Definition extends VersionedEvent<infer Schema>
    ? Schema
    : Definition extends z.ZodType
      ? Definition
      : never

/**
 * Declares an event type whose schema has changed since events were written:
 * its current `version` and `schema`, and an upcaster from each older version
 * to the next. The log stamps `version` on every event of this type it
 * appends; when it reads or folds an older one it runs the upcasters
 * (1 → 2 → 3 ...) and checks the result against `schema`. The stored log is
 * never rewritten. See docs/event-log.md, "Changing an event's schema".
 *
 * @example
 * const planChanged = versionedEvent({
 *   version: 2,
 *   schema: z.object({ plan: z.enum(['free', 'pro']), seats: z.number() }),
 *   upcast: { 1: (v1: { plan: 'free' | 'pro' }) => ({ ...v1, seats: 1 }) },
 * })
 */
export function versionedEvent<Schema extends z.ZodType>(definition: {
  version: number
  schema: Schema
  upcast: Upcasters
}): VersionedEvent<Schema> {
  const { version, schema, upcast } = definition
  if (!Number.isSafeInteger(version) || version < 1) {
    throw new TypeError(`versionedEvent: version must be an integer from 1 on, got ${version}`)
  }
  for (const [from, step] of Object.entries(upcast)) {
    const at = Number(from)
    if (!Number.isSafeInteger(at) || at < 1 || at >= version) {
      throw new TypeError(
        `versionedEvent: upcast[${from}] reads no older version (versions 1 to ${version - 1} have upcasters)`,
      )
    }
    if (typeof step !== 'function')
      throw new TypeError(`versionedEvent: upcast[${from}] is not a function`)
  }
  return { kind: 'a2.versioned-event', version, schema, upcast: { ...upcast } }
}

function isVersionedEvent(definition: unknown): definition is VersionedEvent {
  return (definition as { kind?: unknown } | null)?.kind === 'a2.versioned-event'
}

/** The schema appends of this definition are validated against. */
export function schemaOf(definition: EventDefinition): z.ZodType {
  return isVersionedEvent(definition) ? definition.schema : definition
}

/** The version appends of this definition are stamped with: 1 for a plain zod schema. */
export function versionOf(definition: EventDefinition | EventUpcast): number {
  // A zod schema carries `_zod`; a versioned event and an upcast carry their version.
  return '_zod' in definition ? 1 : definition.version
}

/**
 * A type's current version and its upcasters, without its schema: an entry
 * of A2's registry, which a browser folds by without loading the schemas.
 */
export interface EventUpcast {
  readonly version: number
  readonly upcast: Upcasters
}

/** Upcasts by event type (A2's own registry: `AI_EVENT_UPCASTS`). */
export type EventUpcasts = Readonly<Record<string, EventUpcast>>

/**
 * `events` with the types `upcasts` names made versioned events (their
 * schema stays the one `events` holds). A type `events` does not declare is
 * a mistake in the registry, refused with a `TypeError`.
 */
export function withUpcasts<Events extends Record<string, EventDefinition>>(
  events: Events,
  upcasts: EventUpcasts,
): Record<keyof Events, EventDefinition> {
  const result: Record<string, EventDefinition> = { ...events }
  for (const [type, { version, upcast }] of Object.entries(upcasts)) {
    const declared = events[type]
    if (declared === undefined)
      throw new TypeError(`withUpcasts: "${type}" is not a declared event type`)
    result[type] = versionedEvent({ version, schema: schemaOf(declared), upcast })
  }
  return result as Record<keyof Events, EventDefinition>
}
