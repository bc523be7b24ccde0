import type { UIMessage } from 'ai'
import type { z } from 'zod'
import type { ContractEvents } from '../../log/contract.ts'
import type { StoredEvent } from '../../log/event.ts'
import type { EventSchemaOf } from '../../log/versioned-event.ts'
import type { AIEventPayload, AIEventType } from '../../model/events/ai-events.ts'

// What a lane spec expects a lane to append, and how an append is held to
// it: only what the expectation names counts (its type always; its ID and
// payload fields when given), so a spec says what matters and no more, and
// IDs, timestamps and indices the lane derives do not break it.

/**
 * The events of an agent without a contract: none but `ai.*`. (Not
 * `ContractEvents`, whose every string is a type, which would let any
 * `type` through.)
 */
export type NoContractEvents = Record<never, never>

/** `T` with every field optional, all the way down; arrays keep their length. */
export type DeepPartial<T> = T extends readonly (infer Item)[]
  ? readonly DeepPartial<Item>[]
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T

/**
 * One event a lane is expected to append: its `type`, and, when given, its
 * `id` and the `payload` fields that matter, typed by the event's schema
 * (an `ai.*` event's, or a contract event's of `Events`).
 */
export type ExpectedAppend<
  Events extends ContractEvents = NoContractEvents,
  M extends UIMessage = UIMessage,
> =
  | {
      [T in AIEventType]: { type: T; id?: string; payload?: DeepPartial<AIEventPayload<T, M>> }
    }[AIEventType]
  | {
      [T in Exclude<keyof Events & string, AIEventType>]: {
        type: T
        id?: string
        payload?: DeepPartial<z.output<EventSchemaOf<Events[T]>>>
      }
    }[Exclude<keyof Events & string, AIEventType>]

/** A loosely typed expectation, as the matcher reads one. */
interface Expectation {
  type: string
  id?: string
  payload?: unknown
}

/** Where an appended event differs from what was expected of it, one line per difference. */
function differences(expected: unknown, actual: unknown, path: string): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array, got ${show(actual)}`]
    const lines =
      expected.length === actual.length
        ? []
        : [`${path}: expected ${expected.length} items, got ${actual.length}`]
    const shared = Math.min(expected.length, actual.length)
    for (let item = 0; item < shared; item++)
      lines.push(...differences(expected[item], actual[item], `${path}[${item}]`))
    return lines
  }
  if (typeof expected === 'object' && expected !== null) {
    if (typeof actual !== 'object' || actual === null || Array.isArray(actual))
      return [`${path}: expected an object, got ${show(actual)}`]
    return Object.entries(expected).flatMap(([key, value]) =>
      differences(value, (actual as Record<string, unknown>)[key], `${path}.${key}`),
    )
  }
  return Object.is(expected, actual)
    ? []
    : [`${path}: expected ${show(expected)}, got ${show(actual)}`]
}

/** The differences between one appended event and its expectation (none: it matches). */
function eventDifferences(expected: Expectation, actual: StoredEvent): string[] {
  if (expected.type !== actual.type) return [`type: expected ${expected.type}, got ${actual.type}`]
  return [
    ...(expected.id === undefined || expected.id === actual.id
      ? []
      : [`id: expected ${show(expected.id)}, got ${show(actual.id)}`]),
    ...(expected.payload === undefined
      ? []
      : differences(expected.payload, actual.payload, 'payload')),
  ]
}

/**
 * What was appended, cut down to what the expectations name (the whole
 * event past their end): the side of a diff a test runner shows beside
 * the expectations.
 */
export function projected(
  expected: readonly Expectation[],
  appended: readonly StoredEvent[],
): unknown[] {
  return appended.map((event, position) => {
    const wanted = expected[position]
    if (wanted === undefined || wanted.type !== event.type)
      return { type: event.type, id: event.id, payload: event.payload }
    return {
      type: event.type,
      ...(wanted.id === undefined ? {} : { id: event.id }),
      ...(wanted.payload === undefined
        ? {}
        : { payload: projectedValue(wanted.payload, event.payload) }),
    }
  })
}

/** `actual` with only the fields `expected` names (the rest would only be noise in a diff). */
function projectedValue(expected: unknown, actual: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual))
    return actual.map((item, position) =>
      position < expected.length ? projectedValue(expected[position], item) : item,
    )
  if (
    typeof expected === 'object' &&
    expected !== null &&
    typeof actual === 'object' &&
    actual !== null &&
    !Array.isArray(expected)
  ) {
    const source = actual as Record<string, unknown>
    return Object.fromEntries(
      Object.entries(expected).map(([key, value]) => [key, projectedValue(value, source[key])]),
    )
  }
  return actual
}

/**
 * The report of appends that differ from their expectations, event by
 * event (`✓` matches, `✗` differs, `missing`, `unexpected`), then the whole
 * of what was appended; `undefined` when every expectation is met and
 * nothing else was appended.
 */
export function appendsReport(
  expected: readonly Expectation[],
  appended: readonly StoredEvent[],
): string | undefined {
  const lines: string[] = []
  let failed = false
  const length = Math.max(expected.length, appended.length)
  for (let position = 0; position < length; position++) {
    const wanted = expected[position]
    const actual = appended[position]
    const label = `#${position + 1}`
    if (wanted === undefined && actual !== undefined) {
      failed = true
      lines.push(`  ${label} unexpected: ${actual.type} ${show(actual.payload)}`)
    } else if (wanted !== undefined && actual === undefined) {
      failed = true
      lines.push(
        `  ${label} missing: ${wanted.type}${wanted.payload ? ` ${show(wanted.payload)}` : ''}`,
      )
    } else if (wanted !== undefined && actual !== undefined) {
      const found = eventDifferences(wanted, actual)
      if (found.length === 0) lines.push(`  ${label} ✓ ${actual.type}`)
      else {
        failed = true
        lines.push(`  ${label} ✗ ${wanted.type}`, ...found.map((line) => `      ${line}`))
      }
    }
  }
  if (!failed) return undefined
  return [
    `expected ${count(expected.length)}, the lane appended ${appended.length}:`,
    ...lines,
    'appended:',
    ...(appended.length === 0
      ? ['  (nothing)']
      : appended.map(
          (event, position) => `  ${position + 1}. ${event.type} ${show(event.payload)}`,
        )),
  ].join('\n')
}

const count = (appends: number): string => (appends === 1 ? '1 append' : `${appends} appends`)

/** A value on one line, cut short: enough to tell what it is. */
function show(value: unknown): string {
  const text = value === undefined ? 'undefined' : JSON.stringify(value)
  return text.length > 200 ? `${text.slice(0, 197)}...` : text
}
