import type { z } from 'zod'
import type { Contract } from './contract.ts'
import { UpcastError } from './errors.ts'
import type { StoredEvent } from './event.ts'
import { messageOf } from './message-of.ts'
import { type EventDefinition, type EventUpcast, versionOf } from './versioned-event.ts'

/**
 * What upcasting needs of a contract: which types it declares, and their
 * definitions (`events`): a contract's own, or schema-free upcasts (a
 * browser folds A2's events by `AI_EVENT_UPCASTS` without loading their
 * schemas; their results are checked where the schemas are, on the server).
 * A contract given without `events` upcasts nothing.
 */
export type UpcastContract = Pick<Contract, 'declares'> & {
  readonly events?: Readonly<Record<string, EventDefinition | EventUpcast>>
}

/**
 * An event brought to the schema version the contract declares for its type
 * now: the upcasters from the event's `version` (absent: 1) up to the
 * current one, each a step (1 → 2 → 3), then the current schema's check of
 * the result, whose parsed payload and `version` the returned copy carries.
 * The event itself is never changed, nor the log it came from.
 *
 * Returned as is: an event of a type the contract does not declare, or of
 * the current version. An event of a newer version than the contract knows
 * (written by a newer process during a rolling deploy) is returned as is
 * too, with one `console.warn` per type per process: a reader cannot
 * downcast, and the writer's schema is the one its payload meets.
 *
 * Throws `UpcastError` (`UPCAST_FAILED`) naming the session, index, type and
 * versions when a version has no upcaster, an upcaster throws, or the
 * result fails the current schema (with the failing `path`).
 *
 * @example
 * const current = upcastEvent(supportDesk, storedEvent)
 */
export function upcastEvent<Event extends StoredEvent>(
  contract: UpcastContract | undefined,
  event: Event,
): Event {
  const definition = definitionOf(contract, event.type)
  if (definition === undefined) return event
  const to = versionOf(definition)
  const from = event.version ?? 1
  if (from === to) return event
  if (from > to) {
    warnNewer(event.type, from, to)
    return event
  }
  const versions = { from, to }
  const upcasters = 'upcast' in definition ? definition.upcast : {}
  let payload: unknown = event.payload
  for (let at = from; at < to; at++) {
    const step = upcasters[at]
    if (step === undefined) {
      throw new UpcastError(event, versions, `no upcaster reads version ${at}`)
    }
    try {
      payload = step(payload)
    } catch (error) {
      throw new UpcastError(
        event,
        versions,
        `the upcaster of version ${at} threw: ${messageOf(error)}`,
      )
    }
  }
  const schema = isSchema(definition) ? definition : (definition as { schema?: z.ZodType }).schema
  if (schema === undefined) return { ...event, payload, version: to }
  const result = schema.safeParse(payload)
  if (!result.success) {
    const issues = result.error.issues.map((issue) => ({
      path: issue.path.map((key) => (typeof key === 'symbol' ? String(key) : key)),
      message: issue.message,
    }))
    const first = issues[0]
    const where = first && first.path.length > 0 ? ` at payload.${first.path.join('.')}` : ''
    throw new UpcastError(
      event,
      versions,
      `the upcast payload fails version ${to}'s schema${where}: ${first?.message ?? 'invalid'}`,
      issues,
    )
  }
  return { ...event, payload: result.data, version: to }
}

/**
 * Upcasting by a record of definitions alone (it declares its keys): A2's
 * registry, or a contract's events merged with it.
 */
export function upcastsOf(events: NonNullable<UpcastContract['events']>): UpcastContract {
  return { declares: (type) => Object.hasOwn(events, type), events }
}

/**
 * The version an append of this type is stamped with: the contract's current
 * one, or 1 (an undeclared type, or a contract without `events`).
 */
export function currentVersion(contract: UpcastContract | undefined, type: string): number {
  const definition = definitionOf(contract, type)
  return definition === undefined ? 1 : versionOf(definition)
}

type Definition = EventDefinition | EventUpcast

/** A plain zod schema (version 1), not a versioned event nor an upcast. */
const isSchema = (definition: Definition): definition is z.ZodType => '_zod' in definition

function definitionOf(contract: UpcastContract | undefined, type: string): Definition | undefined {
  if (!contract?.events || !contract.declares(type)) return undefined
  return Object.hasOwn(contract.events, type) ? contract.events[type] : undefined
}

/** Types already warned about in this process: one warning each, not one per read. */
const warnedNewer = new Set<string>()

function warnNewer(type: string, from: number, to: number): void {
  if (warnedNewer.has(type)) return
  warnedNewer.add(type)
  console.warn(
    `a2: "${type}" events of version ${from} were written by newer code than this (which knows version ${to}); they are read as written. Deploy readers before writers (docs/event-log.md, "Changing an event's schema").`,
  )
}
