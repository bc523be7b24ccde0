/**
 * Event log benchmarks (issue 2), all in one run so every figure can be read
 * as a ratio against a baseline measured next to it on the same (shared,
 * noisy) machine:
 *
 * a. Append of one event through the DynamoDB store vs one raw `PutItem` of
 *    a comparable item, on the same moto endpoint (target: ratio <= 2.0),
 *    plus the same pair on a table that already holds 1,000 items, because
 *    moto's transactions slow down with the table's size.
 * b. `state()` of a 10,000-event session: snapshot + tail vs full replay, on
 *    the memory store and on the DynamoDB store (target: >= 10x faster).
 * c. Fold throughput of a simple reducer over 100,000 in-memory events, next
 *    to a hand-written loop computing the same thing.
 *
 * Each comparison warms up, then interleaves its cases round by round
 * (rotating their order) and reports the median and p90 of each. The last
 * line is `BENCH_RESULT {json}` with every figure. See docs/benchmarks.md.
 */
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { cpus } from 'node:os'
import {
  type AttributeValue,
  BatchWriteItemCommand,
  DeleteTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb'
import { type MotoServer, startMotoServer } from '../../functions/local/runner/moto-server.ts'
import type { NewEvent, StoredEvent } from '../../shared/log/event.ts'
import { eventLog } from '../../shared/log/event-log.ts'
import type { EventStore } from '../../shared/log/event-store.ts'
import { MAX_EVENTS_PER_APPEND } from '../../shared/log/limits.ts'
import { foldEvents, type Reducer } from '../../shared/log/reducer.ts'
import { createEventLogTable } from '../../shared/stores/dynamodb/create-table.ts'
import { dynamoDBEventStore } from '../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { eventItem, guardItem } from '../../shared/stores/dynamodb/event-items.ts'
import { HEAD_SK, PK, SK, sessionPk } from '../../shared/stores/dynamodb/table-keys.ts'
import { memoryEventStore } from '../../shared/stores/memory/memory-event-store.ts'
import { encodePayload } from '../../shared/stores/payload-codec.ts'

// ---------------------------------------------------------------- settings

const APPEND = { warmup: 10, rounds: 120, target: 2.0 }
/** The same pair on a table pre-filled with this many items. */
const APPEND_GROWN = { warmup: 2, rounds: 8, items: 1_000 }
const STATE = { events: 10_000, snapshotAt: 9_950, target: 10 }
const STATE_MEMORY = { warmup: 5, rounds: 40 }
/**
 * moto answers a 10,000-event replay in ~15 s (each Query page walks the
 * whole partition), so few rounds, and one snapshot + tail read as warm-up.
 */
const STATE_DYNAMODB = { warmup: 0, rounds: 5 }
const FOLD = { events: 100_000, warmup: 10, rounds: 40 }

// ---------------------------------------------------------------- measuring

interface Stats {
  n: number
  median: number
  p90: number
}

function stats(samples: readonly number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b)
  // Nearest rank: the p90 is a sample that was really measured.
  const rank = (q: number): number => sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? NaN
  return { n: sorted.length, median: rank(0.5), p90: rank(0.9) }
}

type Case = () => Promise<unknown> | unknown

interface Hooks<Name> {
  /** Unmeasured set-up before every round, warm-up rounds included. */
  beforeRound?: () => Promise<void>
  before?: (name: Name) => void
  after?: (name: Name) => void
}

/**
 * Runs `warmup` unmeasured rounds, then `rounds` measured ones. A round runs
 * every case once, in an order rotated by one each round, so drift in the
 * machine's load falls on all cases alike. Returns each case's stats (ms).
 */
async function interleave<Name extends string>(
  cases: Record<Name, Case>,
  { warmup, rounds }: { warmup: number; rounds: number },
  hooks: Hooks<Name> = {},
): Promise<Record<Name, Stats>> {
  const names = Object.keys(cases) as Name[]
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<
    Name,
    number[]
  >
  for (let round = 0; round < warmup + rounds; round++) {
    const measured = round >= warmup
    await hooks.beforeRound?.()
    for (let position = 0; position < names.length; position++) {
      const name = names[(round + position) % names.length] as Name
      if (measured) hooks.before?.(name)
      const started = performance.now()
      await cases[name]()
      const elapsed = performance.now() - started
      if (measured) {
        hooks.after?.(name)
        samples[name].push(elapsed)
      }
    }
  }
  return Object.fromEntries(names.map((name) => [name, stats(samples[name])])) as Record<
    Name,
    Stats
  >
}

const round3 = (value: number): number => Math.round(value * 1000) / 1000
const ratio = (a: Stats, b: Stats): number => round3(a.median / b.median)
const ms = (value: number): string => (value < 10 ? value.toFixed(2) : value.toFixed(1))
const rounded = (s: Stats): Stats => ({ n: s.n, median: round3(s.median), p90: round3(s.p90) })
const thousands = (value: number): string => value.toLocaleString('en')

function printTable(title: string, rows: string[][]): void {
  const widths = (rows[0] ?? []).map((_cell, column) =>
    Math.max(...rows.map((row) => (row[column] ?? '').length)),
  )
  const line = (row: string[]): string =>
    row
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ')
  console.log(`\n${title}`)
  for (const [index, row] of rows.entries()) {
    console.log(`  ${line(row)}`)
    if (index === 0) console.log(`  ${widths.map((width) => '-'.repeat(width)).join('  ')}`)
  }
}

// ---------------------------------------------------------------- events

interface Counts {
  count: number
  total: number
}

/** The reducer of (b) and (c): immutable state, one field of the payload read per event. */
const counter: Reducer<Counts, StoredEvent<string, { n: number }>> = {
  name: 'bench.counter.v1',
  initialState: { count: 0, total: 0 },
  fold: (state, event) => ({ count: state.count + 1, total: state.total + event.payload.n }),
}
const anyEventReducer = counter as unknown as Reducer<Counts, never>

const TEXT = 'The quick brown fox jumps over the lazy dog; a chat message of ordinary length.'

/** Event number `n` carries `n` in its payload, so a fold's result can be checked. */
function newEvent(n: number): NewEvent<string, { text: string; n: number }> {
  return { id: randomUUID(), type: 'bench.note', payload: { text: TEXT, n } }
}

/** Events `from`..`to`, in batches of at most 49 (one DynamoDB transaction each). */
function* batches(from: number, to: number): Generator<NewEvent[]> {
  for (let first = from; first <= to; first += MAX_EVENTS_PER_APPEND) {
    const events: NewEvent[] = []
    for (let n = first; n <= Math.min(to, first + MAX_EVENTS_PER_APPEND - 1); n++)
      events.push(newEvent(n))
    yield events
  }
}

type Item = Record<string, AttributeValue>

async function batchWrite(client: DynamoDBClient, tableName: string, items: Item[]) {
  for (let start = 0; start < items.length; start += 25) {
    let requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }))
    while (requests.length > 0) {
      const answer = await client.send(
        new BatchWriteItemCommand({ RequestItems: { [tableName]: requests } }),
      )
      requests = (answer.UnprocessedItems?.[tableName] ?? []) as typeof requests
    }
  }
}

/**
 * Writes events `from`..`to` of a session with `BatchWriteItem`: the event
 * items and the session head, item for item as the store's appends write
 * them (the ID guards are left out: `state()` never reads them, and they
 * live in other partitions). Appending them for real is out of reach on
 * moto: its `TransactWriteItems` deep-copies the whole table once per action,
 * so 205 appends of 49 events (99 actions each) would take hours and tens of
 * GB of memory.
 */
async function seedSession(
  client: DynamoDBClient,
  tableName: string,
  sessionId: string,
  from: number,
  to: number,
): Promise<void> {
  const timestamp = Date.now()
  const items: Item[] = []
  for (let index = from; index <= to; index++) {
    const event = newEvent(index)
    items.push(eventItem(sessionId, index, timestamp, event, encodePayload(event.payload), ''))
  }
  items.push({
    [PK]: { S: sessionPk(sessionId) },
    [SK]: { S: HEAD_SK },
    lastIndex: { N: String(to) },
    updatedAt: { N: String(timestamp) },
    createdAt: { N: String(timestamp) },
  })
  await batchWrite(client, tableName, items)
}

// ---------------------------------------------------------------- (c) fold

async function benchFold() {
  const events: StoredEvent<string, { n: number }>[] = Array.from(
    { length: FOLD.events },
    (_, position) => ({
      id: `e${position}`,
      type: 'bench.note',
      payload: { n: position % 7 },
      sessionId: 'fold',
      life: '',
      index: position + 1,
      timestamp: 0,
    }),
  )
  const expected = events.reduce((sum, event) => sum + event.payload.n, 0)
  const result = await interleave(
    {
      reducer: () => {
        const { state } = foldEvents(counter, { state: counter.initialState, index: 0 }, events)
        if (state.total !== expected || state.count !== FOLD.events)
          throw new Error('fold mismatch')
      },
      // The baseline: the same sums, by hand, without a state object per event.
      loop: () => {
        let count = 0
        let total = 0
        for (const event of events) {
          count++
          total += event.payload.n
        }
        if (total !== expected || count !== FOLD.events) throw new Error('loop mismatch')
      },
    },
    FOLD,
  )
  const perSecond = (s: Stats) => ({
    median: Math.round(FOLD.events / (s.median / 1000)),
    p90: Math.round(FOLD.events / (s.p90 / 1000)),
  })
  const figures = {
    events: FOLD.events,
    rounds: FOLD.rounds,
    reducerMs: rounded(result.reducer),
    loopMs: rounded(result.loop),
    eventsPerSecond: perSecond(result.reducer),
    loopEventsPerSecond: perSecond(result.loop),
    reducerVsLoop: ratio(result.reducer, result.loop),
  }
  printTable(`(c) fold of ${thousands(FOLD.events)} events in memory (${FOLD.rounds} rounds)`, [
    ['case', 'median ms', 'p90 ms', 'events/s (median)', 'events/s (p90)'],
    ...(['reducer', 'loop'] as const).map((name) => [
      name === 'reducer' ? 'foldEvents + reducer' : 'plain loop (baseline)',
      ms(result[name].median),
      ms(result[name].p90),
      thousands(perSecond(result[name]).median),
      thousands(perSecond(result[name]).p90),
    ]),
  ])
  console.log(`  reducer / loop: ${figures.reducerVsLoop}x the time`)
  return figures
}

// ---------------------------------------------------------------- (b) state

type Seed = (sessionId: string, from: number, to: number) => Promise<void>

async function benchState(
  label: string,
  store: EventStore,
  seed: Seed,
  settings: { warmup: number; rounds: number },
  requestCounts?: Map<string, number>,
) {
  const session = eventLog({ store }).session(`bench-state-${randomUUID()}`)
  const fillStarted = performance.now()
  await seed(session.sessionId, 1, STATE.snapshotAt)
  // The snapshot state() would store after folding events 1..snapshotAt
  // (written directly: on moto that fold alone costs a full replay, ~15 s).
  await store.writeSnapshot(session.sessionId, counter.name, {
    index: STATE.snapshotAt,
    state: { count: STATE.snapshotAt, total: (STATE.snapshotAt * (STATE.snapshotAt + 1)) / 2 },
  })
  await seed(session.sessionId, STATE.snapshotAt + 1, STATE.events)
  const fillSeconds = (performance.now() - fillStarted) / 1000
  const stored = await store.readSnapshot(session.sessionId, counter.name)
  if (stored?.index !== STATE.snapshotAt) throw new Error(`${label}: no snapshot where expected`)

  const expected = JSON.stringify({
    state: { count: STATE.events, total: (STATE.events * (STATE.events + 1)) / 2 },
    index: STATE.events,
  })
  const check = (result: unknown): void => {
    const actual = JSON.stringify(result)
    if (actual !== expected) throw new Error(`${label}: state() gave ${actual}, not ${expected}`)
  }
  // Warms up the read path, and proves the set-up before timing it.
  check(await session.state(anyEventReducer))
  let replays = 0
  const tally = requestTally<'snapshotTail' | 'fullReplay'>(requestCounts)
  const result = await interleave(
    {
      // 50 events past the snapshot: fewer than `snapshotEvery`, so it stays.
      snapshotTail: async () => check(await session.state(anyEventReducer)),
      // A renamed reducer has no snapshot: state() reads and folds the whole
      // log (and then stores a snapshot for that name, as it would for real).
      fullReplay: async () =>
        check(await session.state({ ...anyEventReducer, name: `bench.replay.${++replays}` })),
    },
    settings,
    tally.hooks,
  )
  const speedup = ratio(result.fullReplay, result.snapshotTail)
  return {
    label,
    rounds: settings.rounds,
    fillSeconds: round3(fillSeconds),
    snapshotTailMs: rounded(result.snapshotTail),
    fullReplayMs: rounded(result.fullReplay),
    speedup,
    speedupP90: round3(result.fullReplay.p90 / result.snapshotTail.p90),
    fullReplayEventsPerSecond: Math.round(STATE.events / (result.fullReplay.median / 1000)),
    targetMet: speedup >= STATE.target,
    ...(requestCounts
      ? {
          requestsPerCall: {
            snapshotTail: tally.perCall('snapshotTail'),
            fullReplay: tally.perCall('fullReplay'),
          },
        }
      : {}),
  }
}

function printState(figures: Awaited<ReturnType<typeof benchState>>[]): void {
  printTable(
    `(b) state() of a ${thousands(STATE.events)}-event session: snapshot at ${thousands(STATE.snapshotAt)} + ${STATE.events - STATE.snapshotAt} events vs full replay`,
    [
      ['store', 'rounds', 'tail ms med', 'p90', 'replay ms med', 'p90', 'speedup', 'replay ev/s'],
      ...figures.map((f) => [
        f.label,
        String(f.rounds),
        ms(f.snapshotTailMs.median),
        ms(f.snapshotTailMs.p90),
        ms(f.fullReplayMs.median),
        ms(f.fullReplayMs.p90),
        `${f.speedup}x ${f.targetMet ? '(ok)' : '(MISSED)'}`,
        thousands(f.fullReplayEventsPerSecond),
      ]),
    ],
  )
  for (const f of figures) {
    if (f.requestsPerCall) {
      console.log(
        `  ${f.label} requests: snapshot + tail ${describeRequests(f.requestsPerCall.snapshotTail)}; full replay ${describeRequests(f.requestsPerCall.fullReplay)}`,
      )
    }
  }
  console.log(`  target: snapshot + tail at least ${STATE.target}x faster than a full replay`)
}

// ---------------------------------------------------------------- (a) append

/** Counts the HTTP requests each command sends (retries included). */
function countRequests(client: DynamoDBClient): Map<string, number> {
  const counts = new Map<string, number>()
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = String(context.commandName ?? 'Unknown').replace(/Command$/, '')
      counts.set(name, (counts.get(name) ?? 0) + 1)
      return next(args)
    },
    { step: 'deserialize', name: 'benchRequestCounter' },
  )
  return counts
}

/**
 * Hooks for `interleave` that tally the requests each case sends; `perCall`
 * then gives the average per measured call, by command.
 */
function requestTally<Name extends string>(requestCounts: Map<string, number> | undefined) {
  const perCase = new Map<Name, Map<string, number>>()
  const calls = new Map<Name, number>()
  let before = new Map<string, number>()
  return {
    hooks: {
      before: () => {
        before = new Map(requestCounts)
      },
      after: (name: Name) => {
        const tally = perCase.get(name) ?? new Map<string, number>()
        for (const [command, count] of requestCounts ?? [])
          tally.set(command, (tally.get(command) ?? 0) + count - (before.get(command) ?? 0))
        perCase.set(name, tally)
        calls.set(name, (calls.get(name) ?? 0) + 1)
      },
    },
    perCall: (name: Name): Record<string, number> =>
      Object.fromEntries(
        [...(perCase.get(name) ?? [])]
          .filter(([, count]) => count > 0)
          .map(([command, count]) => [command, round3(count / (calls.get(name) ?? 1))]),
      ),
  }
}

/** `{ TransactWriteItems: 2, GetItem: 1 }` as `2 TransactWriteItems + GetItem`. */
function describeRequests(perCall: Record<string, number>): string {
  return Object.entries(perCall)
    .map(([command, count]) => `${count === 1 ? '' : `${count} `}${command}`)
    .join(' + ')
}

/** Appends and single writes on one table, each case a closure over the current table. */
function appendCases(client: DynamoDBClient) {
  let n = 0
  let tableName = ''
  let store: EventStore | undefined
  let steadySession = ''
  let coldSession = ''
  let rawIndex = 0
  let rawTxIndex = 0
  let rawTx1Index = 0
  const rawTx1Session = 'bench-rawtx1'
  const rawSession = 'bench-raw'
  const rawTxSession = 'bench-rawtx'
  const current = (): EventStore => {
    if (!store) throw new Error('appendCases: use() a table first')
    return store
  }

  /** Switches to a table; seeds a steady session (its head now cached) and a cold one. */
  async function use(table: string): Promise<void> {
    tableName = table
    store = dynamoDBEventStore({ client, tableName })
    steadySession = `bench-steady-${++n}`
    coldSession = `bench-cold-${++n}`
    rawIndex = 0
    rawTxIndex = 0
    rawTx1Index = 0
    await store.append(steadySession, [newEvent(++n)])
    await dynamoDBEventStore({ client, tableName }).append(coldSession, [newEvent(++n)])
  }

  const cases = {
    // The floor: the cheapest request moto answers (a miss).
    getItem: () =>
      client.send(
        new GetItemCommand({
          TableName: tableName,
          Key: { [PK]: { S: sessionPk('bench-missing') }, [SK]: { S: HEAD_SK } },
        }),
      ),
    // The baseline: the event item alone, with the same condition.
    putItem: () => {
      const event = newEvent(++n)
      return client.send(
        new PutItemCommand({
          TableName: tableName,
          Item: eventItem(
            rawSession,
            ++rawIndex,
            Date.now(),
            event,
            encodePayload(event.payload),
            '',
          ),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PK },
        }),
      )
    },
    // What the store sends, built by hand: guard + head + event, no store code.
    rawTransact: () => {
      const base = rawTxIndex++
      const event = newEvent(++n)
      const now = Date.now()
      const absent = {
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': PK },
      }
      return client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: guardItem({
                  eventId: event.id,
                  sessionId: rawTxSession,
                  index: base + 1,
                  content: 'x'.repeat(43),
                  batchFirstIndex: base + 1,
                  batchSize: 1,
                }),
                ...absent,
              },
            },
            {
              Update: {
                TableName: tableName,
                Key: { [PK]: { S: sessionPk(rawTxSession) }, [SK]: { S: HEAD_SK } },
                UpdateExpression: 'SET lastIndex = :last, updatedAt = :now',
                ConditionExpression: 'attribute_not_exists(#pk) OR lastIndex = :base',
                ExpressionAttributeNames: { '#pk': PK },
                ExpressionAttributeValues: {
                  ':last': { N: String(base + 1) },
                  ':base': { N: String(base) },
                  ':now': { N: String(now) },
                },
              },
            },
            {
              Put: {
                TableName: tableName,
                Item: eventItem(
                  rawTxSession,
                  base + 1,
                  now,
                  event,
                  encodePayload(event.payload),
                  '',
                ),
                ...absent,
              },
            },
          ],
        }),
      )
    },
    // A transaction with only the event item: what a transaction costs by itself.
    rawTransact1: () => {
      const event = newEvent(++n)
      return client.send(
        new TransactWriteItemsCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName,
                Item: eventItem(
                  rawTx1Session,
                  ++rawTx1Index,
                  Date.now(),
                  event,
                  encodePayload(event.payload),
                  '',
                ),
                ConditionExpression: 'attribute_not_exists(#pk)',
                ExpressionAttributeNames: { '#pk': PK },
              },
            },
          ],
        }),
      )
    },
    // Steady state: the store knows the session's head, one TransactWriteItems.
    append: () => current().append(steadySession, [newEvent(++n)]),
    // First append to a new session: head 0 is the right guess, no read.
    appendFresh: () => current().append(`bench-fresh-${++n}`, [newEvent(n)]),
    // A new store instance (a cold Lambda container) on an existing session:
    // its guess 0 fails, it reads guard and head, then retries.
    appendCold: () =>
      dynamoDBEventStore({ client, tableName }).append(coldSession, [newEvent(++n)]),
  }
  return { cases, use }
}

type AppendCase = keyof ReturnType<typeof appendCases>['cases']

const APPEND_LABELS: Record<AppendCase, string> = {
  getItem: 'GetItem, a miss (floor)',
  putItem: 'PutItem of an event item (baseline)',
  rawTransact1: 'TransactWriteItems, event item only',
  rawTransact: 'TransactWriteItems by hand (3 actions)',
  append: 'store.append, steady state',
  appendFresh: 'store.append, new session',
  appendCold: 'store.append, cold store, old session',
}

async function benchAppend(client: DynamoDBClient, requestCounts: Map<string, number>) {
  const { cases, use } = appendCases(client)
  const tally = requestTally<AppendCase>(requestCounts)
  let table = ''
  let tables = 0
  const dropTable = async (): Promise<void> => {
    if (table) await client.send(new DeleteTableCommand({ TableName: table }))
  }
  // moto's TransactWriteItems costs grow with the table (see docs), so every
  // round gets a fresh table: the figures are per-request costs, as on AWS.
  const result = await interleave(cases, APPEND, {
    beforeRound: async () => {
      await dropTable()
      table = `a2-bench-append-${++tables}`
      await createEventLogTable(client, table)
      await use(table)
    },
    ...tally.hooks,
  })
  await dropTable()

  // The same baseline and steady append once the table holds 1,000 items.
  const grown = appendCases(client)
  const grownTable = 'a2-bench-append-grown'
  await createEventLogTable(client, grownTable)
  const filler = Array.from({ length: APPEND_GROWN.items }, (_, index) => {
    const event = newEvent(index)
    return eventItem('bench-filler', index + 1, Date.now(), event, encodePayload(event.payload), '')
  })
  await batchWrite(client, grownTable, filler)
  await grown.use(grownTable)
  const grownResult = await interleave(
    { putItem: grown.cases.putItem, append: grown.cases.append },
    APPEND_GROWN,
  )
  await client.send(new DeleteTableCommand({ TableName: grownTable }))

  const names = Object.keys(result) as AppendCase[]
  const figures = {
    rounds: APPEND.rounds,
    ms: Object.fromEntries(names.map((name) => [name, rounded(result[name])])) as Record<
      AppendCase,
      Stats
    >,
    requestsPerCall: Object.fromEntries(names.map((name) => [name, tally.perCall(name)])) as Record<
      AppendCase,
      Record<string, number>
    >,
    ratioVsPutItem: Object.fromEntries(
      names.map((name) => [name, ratio(result[name], result.putItem)]),
    ) as Record<AppendCase, number>,
    appendP90VsPutItemP90: round3(result.append.p90 / result.putItem.p90),
    appendVsRawTransact: ratio(result.append, result.rawTransact),
    target: APPEND.target,
    targetMet: ratio(result.append, result.putItem) <= APPEND.target,
    grownTable: {
      items: APPEND_GROWN.items,
      rounds: APPEND_GROWN.rounds,
      putItemMs: rounded(grownResult.putItem),
      appendMs: rounded(grownResult.append),
      ratio: ratio(grownResult.append, grownResult.putItem),
    },
  }
  printTable(
    `(a) append one event on moto (${APPEND.rounds} interleaved rounds, a new table each)`,
    [
      ['case', 'median ms', 'p90 ms', 'vs PutItem', 'requests per call'],
      ...names.map((name) => [
        APPEND_LABELS[name],
        ms(result[name].median),
        ms(result[name].p90),
        `${figures.ratioVsPutItem[name]}x`,
        describeRequests(figures.requestsPerCall[name]),
      ]),
    ],
  )
  console.log(
    `  steady append / PutItem: ${figures.ratioVsPutItem.append}x (p90 ${figures.appendP90VsPutItemP90}x; target <= ${APPEND.target}: ${figures.targetMet ? 'met' : 'MISSED'})`,
  )
  console.log(
    `  store code over the bare transaction: ${figures.appendVsRawTransact}x; on a table holding ${thousands(APPEND_GROWN.items)} more items: PutItem ${ms(grownResult.putItem.median)} ms, append ${ms(grownResult.append.median)} ms, ${figures.grownTable.ratio}x`,
  )
  return figures
}

// ---------------------------------------------------------------- main

function motoVersion(): string {
  try {
    return execFileSync(
      process.env.A2_PYTHON ?? 'python3',
      ['-c', 'import moto; print(moto.__version__)'],
      { encoding: 'utf8' },
    ).trim()
  } catch {
    return 'unknown'
  }
}

async function main(): Promise<void> {
  const started = performance.now()
  console.log(
    `event-log bench: Node ${process.version}, ${cpus().length} CPUs, ${new Date().toISOString()}`,
  )
  const fold = await benchFold()
  const memoryStore = memoryEventStore()
  const memoryLog = eventLog({ store: memoryStore })
  const memory = await benchState(
    'memory',
    memoryStore,
    async (sessionId, from, to) => {
      for (const events of batches(from, to)) await memoryLog.session(sessionId).append(events)
    },
    STATE_MEMORY,
  )

  let moto: MotoServer | undefined
  const stopMoto = (): void => {
    const server = moto
    moto = undefined
    server?.stop()
  }
  process.once('exit', stopMoto)
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      stopMoto()
      process.exit(code)
    })
  }
  let client: DynamoDBClient | undefined
  try {
    moto = await startMotoServer()
    const dynamo = new DynamoDBClient(moto.clientConfig)
    client = dynamo
    const requestCounts = countRequests(dynamo)
    const append = await benchAppend(dynamo, requestCounts)

    const stateTable = 'a2-bench-state'
    await createEventLogTable(dynamo, stateTable)
    const dynamodb = await benchState(
      'dynamodb (moto)',
      dynamoDBEventStore({ client: dynamo, tableName: stateTable }),
      (sessionId, from, to) => seedSession(dynamo, stateTable, sessionId, from, to),
      STATE_DYNAMODB,
      requestCounts,
    )
    printState([memory, dynamodb])

    const totalSeconds = round3((performance.now() - started) / 1000)
    console.log(`\ntotal ${totalSeconds.toFixed(1)} s`)
    const result = {
      bench: 'event-log',
      date: new Date().toISOString(),
      node: process.version,
      cpus: cpus().length,
      moto: motoVersion(),
      append,
      state: {
        events: STATE.events,
        snapshotAt: STATE.snapshotAt,
        target: STATE.target,
        memory,
        dynamodb,
      },
      fold,
      totalSeconds,
    }
    console.log(`BENCH_RESULT ${JSON.stringify(result)}`)
  } finally {
    client?.destroy()
    stopMoto()
  }
}

await main()
