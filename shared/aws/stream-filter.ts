import { HEAD_SK, SK } from '../stores/dynamodb/table-keys.ts'

/** Event items' sort keys start with this (see table-keys.ts). */
export const EVENT_SK_PREFIX = 'E#'
/** The event item attribute that holds the event's type (see event-items.ts). */
const TYPE_ATTRIBUTE = 't'

/**
 * The stream router's event source filter (Lambda event filtering, applied
 * before an invocation and not billed): new event items only, not heads,
 * cursors, claims or ID guards, and not streamed progress, which wakes no
 * lane (every progress event is followed by one that wakes the lanes it
 * could concern: the step's end, its failure or its supersession). Progress
 * is about 80% of a turn's writes, so this saves most router invocations.
 * An event written over an erase's tombstone (a session started over) is a
 * MODIFY. An event erased into a tombstone is one too, with no type: the
 * type rule is meant to drop it, and the router skips one that comes.
 */
export const ROUTER_FILTER_PATTERN = {
  eventName: ['INSERT', 'MODIFY'],
  dynamodb: {
    Keys: { [SK]: { S: [{ prefix: EVENT_SK_PREFIX }] } },
    NewImage: { [TYPE_ATTRIBUTE]: { S: [{ 'anything-but': ['ai.generation.progress'] }] } },
  },
} as const

/**
 * The TTL deletes of session heads, whose sessions the router erases whole
 * (retention). DynamoDB's TTL deletes appear in the stream as REMOVE records
 * whose `userIdentity` is the DynamoDB service; a user's delete has none
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-streams.html).
 * REMOVE records carry the item's keys whatever the stream's view type.
 */
export const EXPIRED_HEAD_FILTER_PATTERN = {
  eventName: ['REMOVE'],
  userIdentity: { type: ['Service'], principalId: ['dynamodb.amazonaws.com'] },
  dynamodb: { Keys: { [SK]: { S: [HEAD_SK] } } },
} as const

/** The event source mapping's filters: a record that matches any one reaches the router. */
export const ROUTER_FILTER_PATTERNS = [ROUTER_FILTER_PATTERN, EXPIRED_HEAD_FILTER_PATTERN] as const

type Rule = string | { prefix: string } | { 'anything-but': readonly string[] }

/**
 * Whether a record passes a filter pattern, for the local runner, which plays
 * the event source mapping: the subset of Lambda's filter syntax the router's
 * pattern uses (nested objects, exact strings, `prefix`, `anything-but`).
 */
export function matchesFilterPattern(record: unknown, pattern: unknown): boolean {
  if (Array.isArray(pattern)) {
    return (pattern as Rule[]).some((rule) => {
      if (typeof rule === 'string') return record === rule
      if ('prefix' in rule) return typeof record === 'string' && record.startsWith(rule.prefix)
      return typeof record === 'string' && !rule['anything-but'].includes(record)
    })
  }
  if (typeof pattern !== 'object' || pattern === null) return false
  if (typeof record !== 'object' || record === null) return false
  return Object.entries(pattern).every(([name, inner]) =>
    matchesFilterPattern((record as Record<string, unknown>)[name], inner),
  )
}
