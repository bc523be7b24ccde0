import { z } from 'zod'
import { InvalidExportError, SessionNotEmptyError } from './errors.ts'
import { type StoredEvent, versionField } from './event.ts'
import { checkEnvelope, checkSessionId } from './event-envelope.ts'
import type { EventStore } from './event-store.ts'
import { MAX_APPEND_BYTES, MAX_EVENTS_PER_APPEND } from './limits.ts'

/** The first line of an export names the format, so a wrong file fails on line 1. */
const SESSION_EXPORT_FORMAT = 'a2-aws.session'
/** Version 1: events only. Version 2: events, then the reducer snapshots the header counts. */
const SESSION_EXPORT_VERSION = 1
const SNAPSHOTS_EXPORT_VERSION = 2

const headerSchema = z.object({
  format: z.literal(SESSION_EXPORT_FORMAT),
  version: z.union([z.literal(SESSION_EXPORT_VERSION), z.literal(SNAPSHOTS_EXPORT_VERSION)]),
  sessionId: z.string(),
  events: z.number().int().nonnegative(),
  snapshots: z.number().int().nonnegative().optional(),
})

const snapshotSchema = z.object({
  snapshot: z.string().min(1),
  index: z.number().int().nonnegative(),
  state: z.unknown(),
})

/** A reducer snapshot an export carries: the reducer's name, the index it folds to, its state. */
export interface ExportedSnapshot {
  reducer: string
  index: number
  state: unknown
}

export interface ExportOptions {
  /**
   * Reducer names whose stored snapshots the export carries after the
   * events (version 2 of the format, when one is found), so a
   * compatibility check can compare them with a new reducer of the same
   * name. An import ignores them: a snapshot is a cache.
   */
  snapshots?: readonly string[]
}

const eventSchema = z.object({
  index: z.number().int().positive(),
  id: z.string().min(1),
  type: z.string().min(1),
  timestamp: z.number().int().nonnegative(),
  payload: z.unknown(),
  // Written only above 1 (1 is read as none); an export from before versions has none.
  version: z.number().int().min(1).optional(),
})

/**
 * A session's log as JSON Lines: a header line (`format`, `version`,
 * `sessionId`, `events`), then one line per event (`index`, `id`, `type`,
 * `timestamp`, `payload`, and `version` when the payload's schema version
 * is above 1), in index order: as stored, never upcast. Nothing else: state
 * is a fold of the events, so the file is the session. With `snapshots`, the
 * stored snapshots of those reducers follow the events, one line each
 * (`snapshot`: the reducer's name, `index`, `state`), and the header says
 * `version: 2` and how many (`snapshots`); with none found it is version 1.
 *
 * @example
 * await writeFile('s1.jsonl', await exportSession(store, 's1'))
 */
export async function exportSession(
  store: EventStore,
  rawSessionId: string,
  options: ExportOptions = {},
): Promise<string> {
  const sessionId = checkSessionId(rawSessionId)
  const events = await store.read(sessionId)
  const snapshots = await snapshotsOf(store, sessionId, events, options.snapshots ?? [])
  const header = {
    format: SESSION_EXPORT_FORMAT,
    version: snapshots.length > 0 ? SNAPSHOTS_EXPORT_VERSION : SESSION_EXPORT_VERSION,
    sessionId,
    events: events.length,
    ...(snapshots.length > 0 ? { snapshots: snapshots.length } : {}),
  }
  const lines = [JSON.stringify(header)]
  for (const { index, id, type, timestamp, payload, version } of events) {
    lines.push(JSON.stringify({ index, id, type, timestamp, payload, ...versionField(version) }))
  }
  for (const { reducer, index, state } of snapshots) {
    lines.push(JSON.stringify({ snapshot: reducer, index, state }))
  }
  return `${lines.join('\n')}\n`
}

/** The stored snapshots of these reducers that fold the exported events (of their life, within them). */
async function snapshotsOf(
  store: EventStore,
  sessionId: string,
  events: readonly StoredEvent[],
  reducers: readonly string[],
): Promise<ExportedSnapshot[]> {
  const found: ExportedSnapshot[] = []
  for (const reducer of new Set(reducers)) {
    const snapshot = await store.readSnapshot(sessionId, reducer)
    if (snapshot === undefined || snapshot.index === 0 || snapshot.index > events.length) continue
    const life = events[snapshot.index - 1]?.life
    if (snapshot.life !== undefined && snapshot.life !== life) continue
    found.push({ reducer, index: snapshot.index, state: snapshot.state })
  }
  return found
}

/**
 * An export read back: the session it came from, its events and any
 * snapshots (none in a version 1 file), checked. An export keeps no life (a
 * life is the store's: an import starts a new one), so its events say
 * `life: ''`.
 */
export function parseSessionExport(jsonl: string): {
  sessionId: string
  events: StoredEvent[]
  snapshots: ExportedSnapshot[]
} {
  const lines = jsonl.split('\n')
  if (lines.at(-1) === '') lines.pop()
  const parseLine = <T>(at: number, schema: z.ZodType<T>): T => {
    let value: unknown
    try {
      value = JSON.parse(lines[at] ?? '')
    } catch {
      throw new InvalidExportError(at + 1, 'not JSON')
    }
    const parsed = schema.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw new InvalidExportError(at + 1, `${issue?.path.join('.') || 'line'}: ${issue?.message}`)
    }
    return parsed.data
  }
  if (lines.length === 0) throw new InvalidExportError(1, 'empty: no header line')
  const header = parseLine(0, headerSchema)
  const snapshotLines = header.version === SNAPSHOTS_EXPORT_VERSION ? (header.snapshots ?? 0) : 0
  const eventLines = Math.max(1, lines.length - snapshotLines)
  const events: StoredEvent[] = []
  for (let at = 1; at < eventLines; at++) {
    const event = parseLine(at, eventSchema)
    if (event.index !== at) {
      throw new InvalidExportError(at + 1, `index ${event.index} where ${at} was expected`)
    }
    const { version, ...rest } = event
    events.push({ ...rest, sessionId: header.sessionId, life: '', ...versionField(version) })
  }
  if (events.length !== header.events) {
    throw new InvalidExportError(
      lines.length,
      snapshotLines === 0
        ? `the header promises ${header.events} events, the file holds ${events.length}`
        : `the header promises ${header.events} events and ${snapshotLines} snapshots, the file holds ${lines.length - 1} lines after it`,
    )
  }
  const snapshots: ExportedSnapshot[] = []
  for (let at = eventLines; at < lines.length; at++) {
    const { snapshot, index, state } = parseLine(at, snapshotSchema)
    if (index > events.length) {
      throw new InvalidExportError(at + 1, `a snapshot at index ${index}, past the last event`)
    }
    snapshots.push({ reducer: snapshot, index, state })
  }
  return { sessionId: header.sessionId, events, snapshots }
}

export interface ImportOptions {
  /** Import under another session ID than the exported one. */
  sessionId?: string
}

/**
 * Writes an export into a store, into an empty session only (otherwise
 * `SessionNotEmptyError`, `SESSION_NOT_EMPTY`, writing nothing): the events
 * keep their IDs, indices and timestamps, so the session folds to the same
 * state. Appends run in order, each at the index it expects, batched by
 * timestamp within the append limits; a concurrent append to the session
 * stops the import with `APPEND_CONFLICT`. Event IDs are unique per store:
 * import into another store, or after erasing the original.
 */
export async function importSession(
  store: EventStore,
  jsonl: string,
  options: ImportOptions = {},
): Promise<{ sessionId: string; events: number }> {
  const parsed = parseSessionExport(jsonl)
  const sessionId = checkSessionId(options.sessionId ?? parsed.sessionId)
  const head = await store.head(sessionId)
  if (head !== 0) throw new SessionNotEmptyError(sessionId, head)
  // The first batch starts the session's new life; the rest go only into it.
  let life: string | undefined
  for (const batch of importBatches(parsed.events)) {
    const first = batch[0] as StoredEvent
    const { events } = await store.append(
      sessionId,
      // Held to the rules of any append: a hand-edited file gets no ID the log refuses.
      // Each keeps the schema version it was written with: the log upcasts it when read.
      batch.map(({ id, type, payload, version }) => ({
        ...checkEnvelope({ id, type, payload }),
        id,
        ...versionField(version),
      })),
      {
        expectedIndex: first.index - 1,
        timestamp: first.timestamp,
        ...(life === undefined ? {} : { life }),
      },
    )
    life ??= events[0]?.life
  }
  return { sessionId, events: parsed.events.length }
}

/**
 * Runs of events with one timestamp (an append stores one), cut to the
 * append limits. Bytes are counted as JSON, at most half the limit, which
 * leaves room for a payload that stores larger (base64 of gzip).
 */
const utf8 = new TextEncoder()

function importBatches(events: readonly StoredEvent[]): StoredEvent[][] {
  const batches: StoredEvent[][] = []
  let batch: StoredEvent[] = []
  let bytes = 0
  for (const event of events) {
    const size = utf8.encode(JSON.stringify(event)).length
    const previous = batch.at(-1)
    if (
      previous &&
      (previous.timestamp !== event.timestamp ||
        batch.length >= MAX_EVENTS_PER_APPEND ||
        bytes + size > MAX_APPEND_BYTES / 2)
    ) {
      batches.push(batch)
      batch = []
      bytes = 0
    }
    batch.push(event)
    bytes += size
  }
  if (batch.length > 0) batches.push(batch)
  return batches
}
