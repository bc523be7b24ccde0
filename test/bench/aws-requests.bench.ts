/**
 * AWS requests and cost per turn: every request the pipeline makes for one
 * turn (a user message, one tool call, an answer streamed in 200 chunks),
 * counted by an SDK middleware on every client the agent and the local
 * runner use, on the moto server, and priced at us-east-1 list prices.
 *
 * The baseline, measured in the same run on the same kind of store: the
 * same turns on the same DynamoDB store with the embedded in-process
 * dispatcher (no SQS, no Lambda, no router), driven through `agent.fetch`.
 * What the pipeline adds is the difference.
 *
 * First, what the stack costs a month while nothing happens (issue 26):
 * priced from the synthesized template (alarms, dashboards, secrets, the
 * empty receives of Lambda's SQS pollers), for the defaults, the defaults
 * before issue 26 (the baseline, synthesized in the same run) and each
 * option's difference.
 *
 * Then a browser tab left open (issue 12): what an idle tab costs in an hour
 * (the quiet end of its stream, then head checks, counted over a shortened
 * period and priced per hour at the client's defaults), and how long the GET
 * invocation of a closed tab runs on when Lambda never signals the
 * disconnect. Their baseline, measured in the same run: the stream as it
 * was (no quiet end, 1024 MB, a 900 s timeout) held open by a tab that left.
 *
 * And what a turn pays besides its requests (issue 34): the GET stream's
 * run after the answer (measured: each turn's stream is read to its own
 * end), log bytes (measured, and Lambda's own lines assumed), cold starts
 * (the functions' bundle timed in fresh Node processes, a share assumed),
 * the per-second terms, the cost by answer and session length beside the
 * issue's anchors, and its baseline in the same run: a session on the
 * stream before its settled end, at the memory sizes before.
 *
 *   npm run bench -- aws-requests
 *
 * Method and the figures of a run: docs/benchmarks.md, "AWS requests and
 * cost per turn" and "Issue 34: the honest cost of a turn".
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { Console } from 'node:console'
import { Writable } from 'node:stream'
import { format } from 'node:util'
import { Logger } from '@aws-lambda-powertools/logger'
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics'
import { type AttributeValue, DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb'
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams'
import { SchedulerClient } from '@aws-sdk/client-scheduler'
import { SQSClient } from '@aws-sdk/client-sqs'
import { tool } from 'ai'
import { App, Stack } from 'aws-cdk-lib'
import { createParser } from 'eventsource-parser'
import { z } from 'zod'
import { startLocalPipeline } from '../../functions/local/runner/local-pipeline.ts'
import { startMotoServer } from '../../functions/local/runner/moto-server.ts'
import { createLocalResources } from '../../functions/local/runner/resources.ts'
import { streamingShim } from '../../functions/local/runner/streaming-shim.ts'
import { A2Agent, type A2AgentProps } from '../../infra/index.ts'
import { type Agent, agent } from '../../shared/agent/index.ts'
import { AGENT_METRICS, type AgentMetric } from '../../shared/agent/wiring/agent-metrics.ts'
import { inputs } from '../../shared/ai.ts'
import { awsAgentParts, DEFAULT_METRICS_TARGET } from '../../shared/aws/agent-environment.ts'
import { DEADLINE_MARGIN_MS, httpHandler } from '../../shared/aws/lambda/http-handler.ts'
import { STREAM_ENDED } from '../../shared/aws/lambda/stream-log-lines.ts'
import { createAgentClient, DEFAULT_IDLE_CHECK_MS } from '../../shared/client/index.ts'
import { HIDDEN_CHECK_MS } from '../../shared/client/sse-subscription.ts'
import { DEFAULT_QUIET_MS } from '../../shared/http/sse.ts'
import type { StoredEvent } from '../../shared/log/event.ts'
import { foldEvents } from '../../shared/log/reducer.ts'
import { sessionReducer } from '../../shared/model/state/session-state.ts'
import { createEventLogTable } from '../../shared/stores/dynamodb/create-table.ts'
import { dynamoDBEventStore } from '../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { itemBytes } from '../../shared/stores/dynamodb/write-units.ts'
import { scriptedModel, text, toolCalls } from '../../shared/testing/scripted-model.ts'
import {
  DEFAULTS_BEFORE_ISSUE_26,
  IDLE_POLLERS,
  idleMonthlyCost,
  LONG_POLL_SECONDS,
} from '../support/idle-stack-cost.ts'
import { bundleLambda, type InitTiming, timeInit } from '../support/lambda-init.ts'

/**
 * Sessions per case, each on fresh resources, and turns per session: moto's
 * transactions copy the whole table (and its stream) once per action, so a
 * turn on a table that already holds two turns takes twice as long.
 */
const SESSIONS = 2
const TURNS = 2
/** 200 chunks of 5 characters, 10 ms apart: a 2-second answer, as a model streams it. */
const CHUNKS = 200
const CHUNK_DELAY_MS = 10
const ANSWER = 'Order A-42 left the warehouse on Monday and arrives on Thursday. '
  .repeat(20)
  .slice(0, CHUNKS * 5)
/** A turn is over when nothing billable was sent for this long. */
const QUIET_MS = 1_500
const TURN_TIMEOUT_MS = 90_000

// us-east-1 list prices, on-demand, first tier, free tiers ignored.
/** DynamoDB on demand (since the 1 Nov 2024 cut): https://aws.amazon.com/dynamodb/pricing/on-demand/ */
const USD_PER_WRU = 0.625 / 1e6
const USD_PER_RRU = 0.125 / 1e6
/** SQS FIFO, per request; every 64 KB chunk of a payload is a request: https://aws.amazon.com/sqs/pricing/ */
const USD_PER_SQS_FIFO_REQUEST = 0.5 / 1e6
const SQS_CHUNK_BYTES = 64 * 1024
/** Lambda requests, and Arm duration (first 7.5 billion GB-s a month): https://aws.amazon.com/lambda/pricing/ */
const USD_PER_LAMBDA_REQUEST = 0.2 / 1e6
const USD_PER_ARM_GB_SECOND = 0.0000133334
/** Memory of every function but the stream and generation functions: the construct's default (`memorySize` 1024 MB, Arm). */
const LAMBDA_GB = 1
/** The generation function as deployed: 256 MB (`generationMemorySize`, sized by lane-memory.bench.ts; 512 MB before issue 34). */
const GENERATION_GB = 0.25
/** The stream function (GET: streams and head checks) as deployed: 192 MB (`streamMemorySize`; 256 MB before issue 34). */
const STREAM_GB = 0.1875
/** How the two waiting functions are sized: as shipped, and as before issue 34 (the same run's baseline). */
interface Sizing {
  generationGb: number
  streamGb: number
}
const SHIPPED: Sizing = { generationGb: GENERATION_GB, streamGb: STREAM_GB }
const BEFORE_ISSUE_34: Sizing = { generationGb: 0.5, streamGb: 0.25 }
/** EventBridge Scheduler, per invocation after 14 million free a month: https://aws.amazon.com/eventbridge/pricing/ */
const USD_PER_SCHEDULER_INVOCATION = 1 / 1e6
/**
 * API Gateway REST, first 333 million a month: https://aws.amazon.com/api-gateway/pricing/
 * A streamed response is billed as one request per 10 MB, rounded up (Nov 2025 launch post).
 */
const USD_PER_REST_REQUEST = 3.5 / 1e6
/**
 * Data transfer out to the internet (the SSE bytes), first 10 TB a month:
 * API Gateway bills it at the EC2 rate, https://aws.amazon.com/ec2/pricing/on-demand/
 */
const USD_PER_GB_OUT = 0.09

// Lambda duration is not measured: on moto every request takes 10 to 30 times
// what it takes on AWS. These assumptions price it instead (see the doc).
/** One DynamoDB or SQS request from a warm function, in-region. */
const ASSUMED_REQUEST_MS = 10
/** A warm invocation's own work (runtime, parsing, folding state). */
const ASSUMED_INVOCATION_MS = 5
/** The model's streaming time in this script: the generation function waits for it. */
const MODEL_MS = CHUNKS * CHUNK_DELAY_MS
/** A browser's request to API Gateway and its answer's first byte back (a tab's head check, its stream). */
const ASSUMED_ROUND_TRIP_MS = 100
/** A browser watches the turn from its POST to the end of the answer. */
const ASSUMED_WATCH_MS = MODEL_MS + 1_000

// What every turn pays after its answer (issue 34): the GET stream running
// on (measured: the turn's stream is read to its own end, as a tab that
// stays, or one whose leaving Lambda never sees), the logs (measured bytes,
// and Lambda's own lines, assumed), the cold starts (measured init, an
// assumed share).
/** CloudWatch Logs ingestion, Standard class, us-east-1 (https://aws.amazon.com/cloudwatch/pricing/). */
const USD_PER_LOG_GB = 0.5
/**
 * Lambda's own lines per invocation in the JSON log format the construct
 * sets (`loggingFormat: JSON`): `platform.start`, `platform.runtimeDone`
 * and `platform.report`, each as long as this (an assumption: modelled on
 * the records of https://docs.aws.amazon.com/lambda/latest/dg/telemetry-schema-reference.html
 * in the JSON envelope of https://docs.aws.amazon.com/lambda/latest/dg/monitoring-cloudwatchlogs-logformat.html;
 * the text format's START, END and REPORT lines are about 260 bytes together).
 */
const PLATFORM_LINES = [
  '{"time":"2026-12-03T14:00:00.000Z","type":"platform.start","record":{"requestId":"6f7f0961-3b4c-4e8a-9f3e-1f2d3c4b5a69","version":"$LATEST"}}',
  '{"time":"2026-12-03T14:00:00.000Z","type":"platform.runtimeDone","record":{"requestId":"6f7f0961-3b4c-4e8a-9f3e-1f2d3c4b5a69","status":"success","metrics":{"durationMs":12.345,"producedBytes":0}}}',
  '{"time":"2026-12-03T14:00:00.000Z","type":"platform.report","record":{"requestId":"6f7f0961-3b4c-4e8a-9f3e-1f2d3c4b5a69","metrics":{"durationMs":12.345,"billedDurationMs":13,"memorySizeMB":1024,"maxMemoryUsedMB":104},"status":"success"}}',
]
const platformBytesPerInvocation = (): number =>
  PLATFORM_LINES.reduce((total, line) => total + Buffer.byteLength(line) + 1, 0)
/**
 * The share of invocations that are cold (an assumption, stated, not
 * measured: AWS's "Operating Lambda: Performance optimization, part 1"
 * puts cold starts under 1% of invocations for production traffic; a
 * low-traffic agent meets more, see the 10% figure printed beside it).
 */
const ASSUMED_COLD_SHARE = 0.01
const COLD_SHARE_HIGH = 0.1
/** Lambda gives a function a full vCPU at 1,769 MB, and a share in proportion below (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html). */
const FULL_VCPU_MB = 1769
/** Fresh processes timed for the init figure, interleaved with bare Node processes. */
const INIT_ROUNDS = 5
/**
 * The anchors of issue 34, per 1,000 turns, as the issue gives them (step
 * fees alone for Vercel Workflow, not its compute; AWS Lambda durable
 * functions' own figure): not measured here, not scaled by answer length.
 */
const ANCHORS = [
  { name: 'Vercel Workflow (step fees)', low: 0.075, high: 0.125 },
  { name: 'Lambda durable functions', low: 0.08, high: 0.08 },
] as const

const silent = { info: () => {}, warn: () => {}, error: () => {} }
type A2AgentOptionsStream = NonNullable<Parameters<typeof agent>[0]['stream']>

// ---------------------------------------------------------------------------
// The instrument: one record per request (per `client.send`), with DynamoDB
// capacity worked out from what was sent and returned.

type Role = 'agent' | 'runner' | 'baseline'

interface WriteItem {
  key: string
  kind: 'put' | 'update' | 'check'
  /** Bytes of the item a put writes. */
  bytes?: number
  transactional: boolean
}

interface Call {
  role: Role
  /** The function that made it: `lane:generation`, `http GET`, `router`, ... */
  fn: string
  service: 'DynamoDB' | 'DynamoDB Streams' | 'SQS' | 'Scheduler'
  op: string
  error?: string
  at: number
  ms: number
  rru: number
  /** Set once the turn is over (see `writeUnits`). */
  wru: number
  writes: WriteItem[]
  /** SQS: billable requests (64 KB chunks). */
  sqsChunks: number
  /** SendMessage(Batch): entries sent. */
  sent: number
  /** ReceiveMessage: messages returned, and their IDs. */
  received: string[]
  queue?: string
  /** Event items a successful transaction wrote, by type. */
  events: string[]
}

const calls: Call[] = []
const context = new AsyncLocalStorage<{ fn: string }>()
let queueNames = new Map<string, string>()

type Handler = (args: { input: Record<string, unknown> }) => Promise<{ output: unknown }>
type Middleware = (next: Handler, ctx: { commandName?: string }) => Handler
interface Instrumentable {
  middlewareStack: { add(middleware: Middleware, options: { step: string; name: string }): void }
}

function instrument(client: object, role: Role, service: Call['service']): void {
  ;(client as Instrumentable).middlewareStack.add(
    (next, ctx) => async (args) => {
      const op = (ctx.commandName ?? '?').replace(/Command$/, '')
      const started = performance.now()
      const fn = context.getStore()?.fn ?? (role === 'runner' ? runnerFn(op) : 'other')
      let output: unknown
      let error: unknown
      try {
        const result = await next(args)
        output = result.output
        return result
      } catch (caught) {
        error = caught
        throw caught
      } finally {
        calls.push(
          describeCall(role, fn, service, op, args.input, output as Record<string, unknown>, {
            error,
            started,
          }),
        )
      }
    },
    { step: 'initialize', name: 'a2BenchCountRequests' },
  )
}

// The logs: every line our functions write (Powertools' Logger lines of the
// pipeline's handlers, the agent's own console lines, as Lambda's JSON
// format wraps them) and every figure they record for their EMF lines, each
// with the function that wrote it.

const logLines: { fn: string; bytes: number }[] = []
const metricRecords: { fn: string; metric: AgentMetric; value: number }[] = []
const fnNow = (): string => context.getStore()?.fn ?? 'unattributed'
const REQUEST_ID = '6f7f0961-3b4c-4e8a-9f3e-1f2d3c4b5a69'
/** A Lambda context as the entry point's loggers see it (a name as CDK generates them). */
const LAMBDA_CONTEXT = {
  functionName: 'A2Stack-AgentGenerationFunction5D1F06B7-q3W9sT2xLm8K',
  functionVersion: '$LATEST',
  invokedFunctionArn:
    'arn:aws:lambda:us-east-1:123456789012:function:A2Stack-AgentGenerationFunction5D1F06B7-q3W9sT2xLm8K',
  memoryLimitInMB: '512',
  awsRequestId: REQUEST_ID,
  logGroupName: '/aws/lambda/A2Stack-AgentGenerationFunction5D1F06B7-q3W9sT2xLm8K',
  logStreamName: '2026/12/03/[$LATEST]0123456789abcdef0123456789abcdef',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 30_000,
}

/** Powertools' Logger as the Lambda entry makes it (`serviceName: 'a2'`, the Lambda context added), its bytes counted. */
function countingPipelineLogger() {
  let bytes = 0
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.byteLength
      done()
    },
  })
  const logger = new Logger({ serviceName: 'a2' })
  ;(logger as unknown as { console: Console }).console = new Console({
    stdout: sink,
    stderr: sink,
  })
  logger.addContext(LAMBDA_CONTEXT as never)
  const counted =
    (level: 'info' | 'warn' | 'error') =>
    (message: string, ...extra: unknown[]) => {
      const before = bytes
      ;(logger[level] as (message: string, ...extra: unknown[]) => void)(message, ...extra)
      logLines.push({ fn: fnNow(), bytes: bytes - before })
    }
  return { info: counted('info'), warn: counted('warn'), error: counted('error') }
}

/** The agent's logger on Lambda (`console`), each line as the JSON log format wraps it. */
function countingAgentLogger() {
  const line =
    (level: string) =>
    (message?: unknown, ...extra: unknown[]) => {
      const text = JSON.stringify({
        timestamp: new Date().toISOString(),
        level,
        requestId: REQUEST_ID,
        message: format(message, ...extra),
      })
      logLines.push({ fn: fnNow(), bytes: utf8(text) + 1 })
    }
  return { info: line('INFO'), warn: line('WARN'), error: line('ERROR') }
}

/** The figures the handlers record; the bench renders their EMF lines per invocation (see `emfBytes`). */
const countingMetrics = {
  record(metric: AgentMetric, value: number) {
    metricRecords.push({ fn: fnNow(), metric, value })
  },
  flush() {},
}

/** One EMF line as Powertools Metrics writes it (the Lambda entry's sink), in bytes. */
function emfLineBytes(records: readonly { metric: AgentMetric; value: number }[]): number {
  const metrics = new Metrics({
    namespace: DEFAULT_METRICS_TARGET.namespace,
    serviceName: DEFAULT_METRICS_TARGET.service,
  })
  for (const { metric, value } of records)
    metrics.addMetric(metric, MetricUnit[AGENT_METRICS[metric]], value)
  const bytes = utf8(JSON.stringify(metrics.serializeMetrics())) + 1
  metrics.clearMetrics()
  return bytes
}

/**
 * A turn's EMF bytes: one line per invocation that recorded anything, as
 * deployed. Figures recorded inside a function's work go to its
 * invocations, dealt round; the wake-up latency the lane handlers record
 * outside it goes to the queue functions' invocations, the stream figures
 * the HTTP handler records to the GET's.
 */
function emfBytes(
  records: readonly { fn: string; metric: AgentMetric; value: number }[],
  invocations: Record<string, number>,
): number {
  const groups = new Map<string, { metric: AgentMetric; value: number }[][]>()
  const slots = (fn: string) => Math.max(1, Math.round(invocations[fn] ?? 1))
  const add = (fn: string, record: { metric: AgentMetric; value: number }, n: number) => {
    const lines = groups.get(fn) ?? Array.from({ length: slots(fn) }, () => [])
    ;(lines[n % lines.length] as { metric: AgentMetric; value: number }[]).push(record)
    groups.set(fn, lines)
  }
  const queueSlots = Object.keys(invocations)
    .filter((fn) => fn.startsWith('lane:'))
    .flatMap((fn) => Array.from({ length: slots(fn) }, () => fn))
  const dealt = new Map<string, number>()
  for (const record of records) {
    let fn = record.fn
    if (fn === 'unattributed' && record.metric === 'WakeUpLatency' && queueSlots.length > 0) {
      const n = dealt.get('wake') ?? 0
      dealt.set('wake', n + 1)
      fn = queueSlots[n % queueSlots.length] as string
    } else if (fn === 'unattributed' && record.metric.startsWith('Stream')) {
      fn = 'http GET'
    }
    const n = dealt.get(fn) ?? 0
    dealt.set(fn, n + 1)
    add(fn, record, n)
  }
  return sum(
    [...groups.values()].flatMap((lines) =>
      lines.filter((line) => line.length > 0).map(emfLineBytes),
    ),
  )
}

function runnerFn(op: string): string {
  if (op.startsWith('SendMessage')) return 'router'
  // The queue functions lease their messages (visibility-lease.ts): the function's own requests.
  if (op === 'ChangeMessageVisibilityBatch') return 'lease'
  if (['ReceiveMessage', 'DeleteMessageBatch'].includes(op)) return 'sqs event source'
  if (['DescribeStream', 'GetShardIterator', 'GetRecords', 'DescribeTable'].includes(op))
    return 'stream event source'
  return 'scheduler poller'
}

function describeCall(
  role: Role,
  fn: string,
  service: Call['service'],
  op: string,
  input: Record<string, unknown>,
  output: Record<string, unknown> | undefined,
  { error, started }: { error: unknown; started: number },
): Call {
  const call: Call = {
    role,
    fn,
    service,
    op,
    at: Date.now(),
    ms: performance.now() - started,
    rru: 0,
    wru: 0,
    writes: [],
    sqsChunks: 0,
    sent: 0,
    received: [],
    events: [],
  }
  if (error) call.error = (error as { name?: string }).name ?? 'Error'
  if (service === 'DynamoDB') dynamoUnits(call, input, output)
  if (service === 'SQS') {
    const url = input.QueueUrl as string | undefined
    if (url) call.queue = queueNames.get(url) ?? url
    sqsUnits(call, input, output)
  }
  return call
}

const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8')

const keyOf = (item: Record<string, AttributeValue> | undefined): string =>
  `${item?.pk?.S ?? '?'}|${item?.sk?.S ?? '?'}`

/** Reads: per 4 KB, per item for GetItem/BatchGetItem, summed for Query; eventual reads half. */
function readUnits(bytes: number, consistent: boolean): number {
  return Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5)
}

function dynamoUnits(
  call: Call,
  input: Record<string, unknown>,
  output: Record<string, unknown> | undefined,
): void {
  type Item = Record<string, AttributeValue>
  switch (call.op) {
    case 'GetItem': {
      const item = output?.Item as Item | undefined
      call.rru = readUnits(item ? itemBytes(item) : 0, input.ConsistentRead === true)
      return
    }
    case 'Query': {
      const items = (output?.Items ?? []) as Item[]
      call.rru = readUnits(
        items.reduce((sum, item) => sum + itemBytes(item), 0),
        input.ConsistentRead === true,
      )
      return
    }
    case 'BatchGetItem': {
      for (const [table, request] of Object.entries(
        input.RequestItems as Record<string, { Keys: Item[]; ConsistentRead?: boolean }>,
      )) {
        const returned = (output?.Responses as Record<string, Item[]> | undefined)?.[table] ?? []
        const consistent = request.ConsistentRead === true
        for (const item of returned) call.rru += readUnits(itemBytes(item), consistent)
        call.rru += readUnits(0, consistent) * Math.max(0, request.Keys.length - returned.length)
      }
      return
    }
    case 'PutItem': {
      const item = input.Item as Item
      call.writes.push({
        key: keyOf(item),
        kind: 'put',
        bytes: itemBytes(item),
        transactional: false,
      })
      // A step's progress is one PutItem of its event (an erase's tombstone has no type).
      if (!call.error && (item.sk?.S ?? '').startsWith('E#') && item.t?.S)
        call.events.push(item.t.S)
      return
    }
    case 'UpdateItem':
      call.writes.push({ key: keyOf(input.Key as Item), kind: 'update', transactional: false })
      return
    case 'TransactWriteItems': {
      for (const action of input.TransactItems as {
        Put?: { Item: Item }
        Update?: { Key: Item }
        ConditionCheck?: { Key: Item }
      }[]) {
        if (action.Put) {
          call.writes.push({
            key: keyOf(action.Put.Item),
            kind: 'put',
            bytes: itemBytes(action.Put.Item),
            transactional: true,
          })
          const sk = action.Put.Item.sk?.S ?? ''
          if (!call.error && sk.startsWith('E#')) call.events.push(action.Put.Item.t?.S ?? '?')
        } else if (action.Update) {
          call.writes.push({ key: keyOf(action.Update.Key), kind: 'update', transactional: true })
        } else if (action.ConditionCheck) {
          call.writes.push({
            key: keyOf(action.ConditionCheck.Key),
            kind: 'check',
            transactional: true,
          })
        }
      }
      return
    }
  }
}

function sqsUnits(
  call: Call,
  input: Record<string, unknown>,
  output: Record<string, unknown> | undefined,
): void {
  const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / SQS_CHUNK_BYTES))
  switch (call.op) {
    case 'SendMessageBatch': {
      const entries = input.Entries as { MessageBody: string; MessageDeduplicationId?: string }[]
      call.sent = entries.length
      if (process.env.A2_BENCH_SENDS)
        console.log(
          'SEND',
          call.fn,
          call.queue ?? '',
          entries.map((e) => e.MessageDeduplicationId).join(' '),
        )
      call.sqsChunks = chunks(entries.reduce((sum, entry) => sum + utf8(entry.MessageBody), 0))
      return
    }
    case 'SendMessage':
      call.sent = 1
      call.sqsChunks = chunks(utf8(input.MessageBody as string))
      return
    case 'ReceiveMessage': {
      const messages = (output?.Messages ?? []) as { MessageId?: string; Body?: string }[]
      call.received = messages.map((message) => message.MessageId ?? '?')
      if (process.env.A2_BENCH_SENDS && messages.length > 0)
        console.log('RECV', call.queue ?? '', messages.map((m) => m.Body).join(' | '))
      call.sqsChunks = chunks(messages.reduce((sum, message) => sum + utf8(message.Body ?? ''), 0))
      return
    }
    default:
      call.sqsChunks = 1
  }
}

/**
 * Write units, once the turn is over: a put is billed on the larger of the
 * item it replaces and the new one, an update on the larger of before and
 * after (after: the item as a scan finds it at the end of the turn; the
 * items updated here, heads, cursors and claims, are a few dozen bytes), a
 * transaction's condition check on the item it checks; 1 KB units, at
 * least 1 per item, twice that in a transaction.
 */
function writeUnits(
  turnCalls: readonly Call[],
  known: Map<string, number>,
  final: ReadonlyMap<string, number>,
): { wru: number; largestUpdated: number } {
  let wru = 0
  let largestUpdated = 0
  for (const call of turnCalls) {
    call.wru = 0
    for (const write of call.writes) {
      const before = known.get(write.key) ?? 0
      const after = write.kind === 'put' ? (write.bytes ?? 0) : (final.get(write.key) ?? before)
      const bytes = Math.max(before, after)
      if (write.kind !== 'put') largestUpdated = Math.max(largestUpdated, bytes)
      const units = Math.max(1, Math.ceil(bytes / 1024)) * (write.transactional ? 2 : 1)
      call.wru += units
      wru += units
      if (!call.error && write.kind !== 'check') known.set(write.key, after)
    }
  }
  return { wru, largestUpdated }
}

/** Requests the deployed system makes (and pays for); the rest only the runner makes. */
function deployed(call: Call): boolean {
  if (call.role !== 'runner') return true
  return (
    call.op.startsWith('SendMessage') ||
    // The queue functions' leases (the runner hands them its client).
    call.op === 'ChangeMessageVisibilityBatch' ||
    call.op === 'DeleteMessageBatch' ||
    (call.op === 'ReceiveMessage' && call.received.length > 0)
  )
}

// ---------------------------------------------------------------------------
// The scene: a tool with an execute function, and a model that calls it once
// and then streams its answer in 200 chunks.

function scriptedAgentModel() {
  let callNumber = 0
  return scriptedModel(
    (options) =>
      options.prompt.at(-1)?.role === 'tool'
        ? text(ANSWER, { chunks: CHUNKS })
        : toolCalls({
            toolCallId: `call-${++callNumber}`,
            toolName: 'lookupOrder',
            input: { orderId: 'A-42' },
          }),
    { chunkDelayMs: CHUNK_DELAY_MS },
  ).model
}

const tools = {
  lookupOrder: tool({
    description: 'Look an order up',
    inputSchema: z.object({ orderId: z.string() }),
    execute: async ({ orderId }) => ({ orderId, status: 'shipped', eta: 'Thursday' }),
  }),
}

const reducer = sessionReducer(undefined)

interface Measured {
  kind: 'turn' | 'reconnect'
  turn: number
  calls: Call[]
  wru: number
  largestUpdated: number
  /** The runner's invocation counts over the measurement (pipeline only). */
  router: number
  lanes: Record<string, number>
  /** Bytes the GET stream sent the browser. */
  sseBytes: number
  /** How long the GET stream ran on after the answer's end reached the browser, ms (turns). */
  tailMs: number
  /** Bytes of the log lines the functions wrote, and the figures they recorded. */
  logBytes: number
  metricRecords: { fn: string; metric: AgentMetric; value: number }[]
  seconds: number
}

/** The idle stack's monthly cost, synthesized now: the defaults, the defaults before, each option. */
function reportIdleStack(): void {
  const idle = (props: Partial<A2AgentProps>) => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Idle')
    new A2Agent(stack, 'Agent', { entry: 'functions/example-agent.ts', ...props })
    return idleMonthlyCost(stackTemplate(stack))
  }
  const now = idle({})
  const before = idle(DEFAULTS_BEFORE_ISSUE_26)
  const dollars = (usd: number) => `$${usd.toFixed(2)}`
  console.log(
    `An idle stack, a month (us-east-1 list prices, free tiers ignored; Lambda's SQS pollers: ${IDLE_POLLERS.capped} per queue with a MaximumConcurrency, ${IDLE_POLLERS.uncapped} without, a receive every ${LONG_POLL_SECONDS} s each):`,
  )
  console.log(`  ${'item'.padEnd(76)}${pad('now', 14)}${pad('before', 14)}`)
  const items = [...new Set([...now.lines, ...before.lines].map((line) => line.item))]
  const cell = (line: { count: number; usd: number } | undefined) =>
    pad(`${line?.count ?? 0} ${dollars(line?.usd ?? 0)}`, 14)
  for (const item of items) {
    const a = now.lines.find((line) => line.item === item)
    const b = before.lines.find((line) => line.item === item)
    console.log(`  ${item.padEnd(76)}${cell(a)}${cell(b)}`)
  }
  console.log(
    `  ${'total'.padEnd(76)}${pad(dollars(now.usd), 14)}${pad(dollars(before.usd), 14)}  (${(now.usd / before.usd).toFixed(2)}x; target at most $4: ${now.usd <= 4 ? 'met' : 'MISSED'})`,
  )
  const options: [string, Partial<A2AgentProps>][] = [
    ['dashboard: true', { dashboard: true }],
    ["alarms: { throttles: 'all' }", { alarms: { throttles: 'all' } }],
    ['alarms: false', { alarms: false }],
    [
      'maxConcurrency: { admission: 20 } (a FIFO queue capped)',
      { maxConcurrency: { admission: 20 } },
    ],
    [
      'maxConcurrency: { generation: false } (a FIFO queue uncapped)',
      { maxConcurrency: { generation: false } },
    ],
    [
      'maxConcurrency: { timers: false } (the standard queue uncapped)',
      { maxConcurrency: { timers: false } },
    ],
  ]
  const differences = options.map(([name, props]) => [name, idle(props).usd - now.usd] as const)
  console.log(
    `  options, against the default: ${differences.map(([name, usd]) => `${name} ${usd >= 0 ? '+' : '-'}${dollars(Math.abs(usd))}`).join(', ')}`,
  )
  console.log(
    `BENCH_RESULT ${JSON.stringify({ bench: 'aws-requests-idle-stack', usdPerMonth: now.usd, usdPerMonthBefore: before.usd, lines: now.lines, linesBefore: before.lines, options: Object.fromEntries(differences) })}\n`,
  )
}

/** A stack's template, as `cdk synth` writes it. */
function stackTemplate(stack: Stack): Record<string, unknown> {
  const assembly = (stack.node.root as App).synth()
  return assembly.getStackByName(stack.stackName).template as Record<string, unknown>
}

/**
 * A cold start's work: the functions' bundle (the construct's bundling of
 * the entry point and the example agent), imported by fresh Node processes
 * interleaved with bare ones; the medians.
 */
async function measureInit(): Promise<InitFigures> {
  const bundle = await bundleLambda()
  try {
    const bare: InitTiming[] = []
    const loaded: InitTiming[] = []
    await timeInit(bundle.file) // warm-up: the file system's cache
    for (let round = 0; round < INIT_ROUNDS; round++) {
      bare.push(await timeInit(undefined))
      loaded.push(await timeInit(bundle.file))
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[values.length >> 1] ?? 0
    return {
      bundleBytes: bundle.bytes,
      bareMs: median(bare.map((t) => t.ms)),
      bundleMs: median(loaded.map((t) => t.ms)),
      rss: median(loaded.map((t) => t.rss)),
    }
  } finally {
    bundle.dispose()
  }
}

async function main(): Promise<void> {
  reportIdleStack()
  init = await measureInit()
  const moto = await startMotoServer()
  try {
    const config = moto.clientConfig
    // Not counted: creating resources, watching for the end of a turn, item sizes.
    const setup = {
      dynamodb: new DynamoDBClient(config),
      sqs: new SQSClient(config),
      scheduler: new SchedulerClient(config),
    }

    async function itemSizes(tableName: string): Promise<Map<string, number>> {
      const sizes = new Map<string, number>()
      let startKey: Record<string, AttributeValue> | undefined
      do {
        const page = await setup.dynamodb.send(
          new ScanCommand({ TableName: tableName, ExclusiveStartKey: startKey }),
        )
        for (const item of page.Items ?? []) sizes.set(keyOf(item), itemBytes(item))
        startKey = page.LastEvaluatedKey
      } while (startKey)
      return sizes
    }

    /** Waits until nothing billable was sent for `QUIET_MS` and no lane runs. */
    async function quiet(lanesBusy: () => boolean): Promise<void> {
      const deadline = Date.now() + TURN_TIMEOUT_MS
      for (;;) {
        const last = calls.findLast(deployed)?.at ?? 0
        if (!lanesBusy() && Date.now() - last >= QUIET_MS) return
        if (Date.now() > deadline) throw new Error('the pipeline never went quiet')
        await sleep(100)
      }
    }

    async function finishedTurn(tableName: string, sessionId: string, turn: number) {
      const store = dynamoDBEventStore({ client: setup.dynamodb, tableName })
      const deadline = Date.now() + TURN_TIMEOUT_MS
      for (;;) {
        const events = await store.read(sessionId)
        const { state } = foldEvents(reducer, { state: reducer.initialState, index: 0 }, events)
        if (state.ai.active === null && state.ai.messages.length === 2 * turn)
          return events.at(-1)?.index ?? 0
        if (Date.now() > deadline) throw new Error(`turn ${turn} of ${sessionId} never finished`)
        await sleep(200)
      }
    }

    const watch = (url: string, sessionId: string, head: number) =>
      new Request(`${url}?sessionId=${sessionId}`, { headers: { 'last-event-id': String(head) } })

    /**
     * One turn, as a browser does it: watch the session, send the message,
     * and read the stream to its own end, as a tab that stays does (and as
     * Lambda runs it when the tab leaves unseen): how long it ran on after
     * the answer's end arrived is the turn's `tailMs`.
     */
    async function turn(
      fetchAgent: (request: Request) => Promise<Response>,
      url: string,
      sessionId: string,
      turnNumber: number,
      head: number,
    ): Promise<{ sseBytes: number; tailMs: number }> {
      let answeredAt: number | undefined
      const watching = fetchAgent(watch(url, sessionId, head)).then((response) =>
        readStream(
          response,
          (read) => {
            if (answeredAt === undefined && read.types.includes('ai.message.completed'))
              answeredAt = performance.now()
            return false
          },
          { toEnd: true },
        ),
      )
      const posted = await fetchAgent(
        new Request(`${url}?sessionId=${sessionId}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            events: inputs.message({
              id: `${sessionId}-m${turnNumber}`,
              role: 'user',
              parts: [{ type: 'text', text: 'Where is my order A-42?' }],
            }),
          }),
        }),
      )
      if (posted.status !== 200) throw new Error(`POST answered ${posted.status}`)
      await posted.arrayBuffer()
      const read = await watching
      if (answeredAt === undefined) throw new Error('the stream ended before the answer did')
      return { sseBytes: read.bytes, tailMs: read.endedAt - answeredAt }
    }

    /** A GET on an idle session (a page load, a reconnect), closed once it is current. */
    async function reconnect(
      fetchAgent: (request: Request) => Promise<Response>,
      url: string,
      sessionId: string,
      head: number,
    ): Promise<void> {
      const response = await fetchAgent(watch(url, sessionId, head))
      await readStream(response, (read) => read.comments.some((c) => c.trim().startsWith('head')))
    }

    /** Runs the turns (and, in the first session, a reconnect) of one session. */
    async function measureSession(options: {
      tableName: string
      sessionId: string
      fetchAgent: (request: Request) => Promise<Response>
      url: string
      settle: () => Promise<void>
      runner?: { stats: { routerInvocations: number; laneInvocations: Record<string, number> } }
      withReconnect: boolean
    }): Promise<Measured[]> {
      const known = new Map<string, number>()
      const results: Measured[] = []
      let head = 0
      const measure = async (
        kind: Measured['kind'],
        turnNumber: number,
        act: () => Promise<{ sseBytes: number; tailMs: number }>,
      ) => {
        if (results.length === 0) await options.settle()
        const from = calls.length
        const logsFrom = logLines.length
        const recordsFrom = metricRecords.length
        const before = structuredClone(options.runner?.stats)
        const started = performance.now()
        const { sseBytes, tailMs } = await act()
        await options.settle()
        const measured = calls.slice(from)
        const { wru, largestUpdated } = writeUnits(
          measured,
          known,
          await itemSizes(options.tableName),
        )
        const lanes: Record<string, number> = {}
        for (const [name, count] of Object.entries(options.runner?.stats.laneInvocations ?? {}))
          lanes[name] = count - (before?.laneInvocations[name] ?? 0)
        results.push({
          kind,
          turn: turnNumber,
          calls: measured,
          wru,
          largestUpdated,
          router: (options.runner?.stats.routerInvocations ?? 0) - (before?.routerInvocations ?? 0),
          lanes,
          sseBytes,
          tailMs,
          logBytes: sum(logLines.slice(logsFrom).map((line) => line.bytes)),
          metricRecords: metricRecords.slice(recordsFrom),
          seconds: (performance.now() - started) / 1000,
        })
      }
      for (let n = 1; n <= TURNS; n++) {
        await measure('turn', n, async () => {
          const read = await turn(options.fetchAgent, options.url, options.sessionId, n, head)
          head = await finishedTurn(options.tableName, options.sessionId, n)
          return read
        })
      }
      if (options.withReconnect) {
        await measure('reconnect', 0, async () => {
          await reconnect(options.fetchAgent, options.url, options.sessionId, head)
          return { sseBytes: 0, tailMs: 0 }
        })
      }
      return results
    }

    // The pipeline: the agent and the runner on separate, instrumented clients.
    async function pipelineSession(
      session: number,
      stream?: A2AgentOptionsStream,
    ): Promise<Measured[]> {
      const resources = await createLocalResources(setup, {
        prefix: `a2-cost-${session}-${Date.now().toString(36)}`,
      })
      queueNames = new Map(
        [
          ...Object.entries(resources.queues.lanes),
          ['ingress', resources.queues.ingress] as const,
          ['timers', resources.queues.timers] as const,
        ].map(([name, queue]) => [queue.url, name]),
      )
      const agentClients = {
        dynamodb: new DynamoDBClient(config),
        sqs: new SQSClient(config),
        scheduler: new SchedulerClient(config),
      }
      const runnerClients = {
        dynamodb: new DynamoDBClient(config),
        streams: new DynamoDBStreamsClient(config),
        sqs: new SQSClient(config),
        scheduler: new SchedulerClient(config),
      }
      instrument(agentClients.dynamodb, 'agent', 'DynamoDB')
      instrument(agentClients.sqs, 'agent', 'SQS')
      instrument(agentClients.scheduler, 'agent', 'Scheduler')
      instrument(runnerClients.dynamodb, 'runner', 'DynamoDB')
      instrument(runnerClients.streams, 'runner', 'DynamoDB Streams')
      instrument(runnerClients.sqs, 'runner', 'SQS')
      instrument(runnerClients.scheduler, 'runner', 'Scheduler')
      const aws = awsAgentParts({ environment: resources.environment, clients: agentClients })
      const served: Agent = agent({
        name: 'bench',
        model: scriptedAgentModel(),
        tools,
        store: aws.store,
        dispatcher: aws.dispatcher,
        scheduler: aws.scheduler,
        logger: countingAgentLogger(),
        ...(stream ? { stream } : {}),
      })
      let running = 0
      // Every request is attributed to the function that made it.
      const attributed = {
        ...served,
        fetch: (request: Request, options?: Parameters<Agent['fetch']>[1]) =>
          context.run({ fn: `http ${request.method}` }, () => served.fetch(request, options)),
        runtime: {
          ...served.runtime,
          run: (wakeUp: Parameters<Agent['runtime']['run']>[0]) =>
            context.run({ fn: `lane:${wakeUp.lane}` }, async () => {
              running++
              try {
                await served.runtime.run(wakeUp)
              } finally {
                running--
              }
            }),
        },
      }
      const pipeline = await startLocalPipeline({
        agentModule: { default: attributed },
        environment: resources.environment,
        queues: resources.queues,
        clients: runnerClients,
        logger: countingPipelineLogger(),
        metrics: countingMetrics,
        // The benchmark counts the pipeline's requests, not the token check's.
        auth: { type: 'none' },
      })
      try {
        return await measureSession({
          tableName: resources.environment.tableName,
          sessionId: `s${session}`,
          fetchAgent: (request) => fetch(request),
          url: pipeline.url,
          // Quiet includes the router's batching window: its sends belong to the turn.
          settle: () => quiet(() => running > 0 || pipeline.routerGathering() > 0),
          runner: pipeline,
          withReconnect: session === 1,
        })
      } finally {
        await pipeline.stop()
      }
    }

    // The baseline: the same agent on the same kind of store, embedded dispatch.
    async function baselineSession(session: number): Promise<Measured[]> {
      const tableName = `a2-cost-base-${session}-${Date.now().toString(36)}-events`
      await createEventLogTable(setup.dynamodb, tableName)
      const dynamodb = new DynamoDBClient(config)
      instrument(dynamodb, 'baseline', 'DynamoDB')
      const served = agent({
        name: 'bench',
        model: scriptedAgentModel(),
        tools,
        store: dynamoDBEventStore({ client: dynamodb, tableName }),
        logger: silent,
      })
      try {
        return await measureSession({
          tableName,
          sessionId: `b${session}`,
          fetchAgent: (request) => served.fetch(request),
          url: 'http://embedded.local/agent',
          settle: async () => {
            await served.runtime.idle()
            await quiet(() => false)
          },
          withReconnect: session === 1,
        })
      } finally {
        served.runtime.close()
      }
    }

    const pipeline: Measured[] = []
    const baseline: Measured[] = []
    for (let session = 1; session <= SESSIONS; session++) {
      pipeline.push(...(await pipelineSession(session)))
      baseline.push(...(await baselineSession(session)))
    }
    // The same run's baseline of issue 34: the stream as it was (no settled end).
    const before = await pipelineSession(SESSIONS + 1, { settledQuietMs: false })
    report(pipeline, baseline, before)
    reportTabs(await measureTabs(config, setup, { finishedTurn }))
  } finally {
    moto.stop()
  }
}

// ---------------------------------------------------------------------------
// The figures of one measurement, and the report.

interface Figures {
  /** `service op (who)` → requests, and units (RRU+WRU, or SQS messages). */
  operations: Map<string, { requests: number; units: number }>
  /** Runner-only requests, by `service op`. */
  runnerOnly: Map<string, number>
  /** Function → `service op` → requests. */
  functions: Map<string, Map<string, number>>
  dynamoRequests: number
  wru: number
  rru: number
  progressWru: number
  /** Appends of streamed progress alone (no other event): their count and WRU. */
  progressOnly: { appends: number; wru: number }
  transactions: number
  cancelled: number
  events: number
  progressEvents: number
  sqsRequests: number
  sqsBillable: number
  fastPathMessages: number
  routerMessages: number
  delivered: number
  /** Lambda invocations by function, as deployed (estimate) and on the runner. */
  lambda: Record<string, number>
  lambdaRunner: Record<string, number>
  gbSeconds: { code: number; generation: number; stream: number; streamTail: number; init: number }
  /** The GET stream's run after the answer, s (measured). */
  tailSeconds: number
  /** The GET stream's `Query` requests (its reads and tail polls), and their RRU. */
  getQueries: { count: number; rru: number }
  /** Log bytes: our lines (measured), our EMF lines (rendered from the recorded figures), Lambda's own (assumed). */
  logBytes: { app: number; emf: number; platform: number }
  restRequests: number
  sseBytes: number
  cost: Record<string, number>
  seconds: number
}

const LAMBDA_COST_KEYS = {
  code: 'Lambda duration, our code',
  generation: 'Lambda duration, generation (model time)',
  stream: 'Lambda duration, GET stream (watch time)',
  streamTail: 'Lambda duration, GET stream after the answer',
  logs: 'CloudWatch Logs ingestion',
  init: `Lambda init, cold starts (${ASSUMED_COLD_SHARE * 100}% assumed)`,
} as const

/** The Lambda bundle's init, measured before the turns (see `measureInit`). */
interface InitFigures {
  bundleBytes: number
  /** A bare Node process's start, and one importing the bundle, ms (medians, this machine). */
  bareMs: number
  bundleMs: number
  /** Resident set with the bundle imported, bytes. */
  rss: number
}
let init: InitFigures = { bundleBytes: 0, bareMs: 0, bundleMs: 0, rss: 0 }
/**
 * A cold start's billed INIT at a memory size: the measured import on one
 * core of this machine, as CPU-bound work on the share of a vCPU Lambda
 * gives that memory (an assumption: Lambda may give INIT more; this
 * machine's core is not a Graviton's).
 */
const initSeconds = (memoryMb: number): number =>
  (init.bundleMs / 1000) * Math.max(1, FULL_VCPU_MB / memoryMb)
/** The DynamoDB store's tail rhythm while news comes (`DEFAULT_TAIL_POLL_MS.min`): one `Query` per 250 ms. */
const TAIL_POLL_MS = 250

function figuresOf(measured: Measured, pipeline: boolean, sizing: Sizing = SHIPPED): Figures {
  const operations = new Map<string, { requests: number; units: number }>()
  const runnerOnly = new Map<string, number>()
  const functions = new Map<string, Map<string, number>>()
  const delivered = new Map<string, Set<string>>()
  let rru = 0
  let sqsRequests = 0
  let sqsBillable = 0
  for (const call of measured.calls) {
    const label = `${call.service} ${call.op}`
    if (!deployed(call)) {
      const key = call.op === 'ReceiveMessage' ? `${label} (empty)` : label
      runnerOnly.set(key, (runnerOnly.get(key) ?? 0) + 1)
      continue
    }
    let key = label
    let units = 0
    if (call.service === 'DynamoDB') {
      rru += call.rru
      units = call.rru + call.wru
      if (call.error) key = `${label} (${call.error})`
    } else if (call.service === 'SQS') {
      sqsRequests++
      sqsBillable += call.sqsChunks
      units = call.sent + call.received.length
      const who = call.op.startsWith('SendMessage')
        ? call.role === 'runner'
          ? 'router'
          : 'fast path'
        : 'event source'
      key = `${label} (${who})`
      if (call.op === 'ReceiveMessage') {
        const queue = call.queue ?? '?'
        const ids = delivered.get(queue) ?? new Set<string>()
        for (const id of call.received) ids.add(id)
        delivered.set(queue, ids)
      }
    }
    const entry = operations.get(key) ?? { requests: 0, units: 0 }
    entry.requests++
    entry.units += units
    operations.set(key, entry)
    const ops = functions.get(call.fn) ?? new Map<string, number>()
    ops.set(label, (ops.get(label) ?? 0) + 1)
    functions.set(call.fn, ops)
  }
  const billed = measured.calls.filter(deployed)
  const transactions = billed.filter((call) => call.op === 'TransactWriteItems')
  // Every append: a transaction, or a step's progress as one PutItem of its event.
  const appends = billed.filter(
    (call) => call.events.length > 0 || call.op === 'TransactWriteItems',
  )
  const events = appends.flatMap((call) => call.events)
  const messagesSentBy = (role: Role) =>
    sum(
      billed
        .filter((call) => call.role === role && call.op.startsWith('SendMessage'))
        .map((call) => call.sent),
    )
  const deliveredOn = (queue: string) => delivered.get(queue)?.size ?? 0
  const http = measured.kind === 'turn' ? 2 : 1
  // As deployed: the admission mapping takes batches of 10 (the runner's
  // batches), the other lanes batches of 1 (one invocation per message); the
  // router one invocation per stream batch; the HTTP function one per request.
  const lambda: Record<string, number> = pipeline
    ? {
        http,
        router: measured.router,
        admission: measured.lanes.admission ?? 0,
        generation: deliveredOn('generation'),
        tools: deliveredOn('tools'),
        handlers: deliveredOn('handlers'),
      }
    : {}
  const lambdaRunner: Record<string, number> = pipeline
    ? { http, router: measured.router, ...measured.lanes }
    : {}
  // Lambda duration, on the assumptions above.
  const requestsOf = (fn: (name: string) => boolean) =>
    billed.filter((call) => fn(call.fn) && call.fn !== 'sqs event source').length
  const progressAppends = appends.filter((call) =>
    call.events.includes('ai.generation.progress'),
  ).length
  const invocations = sum(Object.values(lambda))
  const gbSeconds = pipeline
    ? {
        code:
          (LAMBDA_GB *
            ((invocations - (lambda.generation ?? 0) - (measured.kind === 'turn' ? 1 : 0)) *
              ASSUMED_INVOCATION_MS +
              requestsOf((fn) => fn !== 'lane:generation' && fn !== 'http GET') *
                ASSUMED_REQUEST_MS)) /
          1000,
        generation:
          measured.kind === 'turn'
            ? (sizing.generationGb *
                (MODEL_MS +
                  (lambda.generation ?? 0) * ASSUMED_INVOCATION_MS +
                  (requestsOf((fn) => fn === 'lane:generation') - progressAppends) *
                    ASSUMED_REQUEST_MS)) /
              1000
            : 0,
        stream: (sizing.streamGb * (measured.kind === 'turn' ? ASSUMED_WATCH_MS : 0)) / 1000,
      }
    : { code: 0, generation: 0, stream: 0 }
  const tailSeconds = pipeline && measured.kind === 'turn' ? measured.tailMs / 1000 : 0
  // Every invocation's memory: a cold one bills its INIT at it.
  const byMemory: [invocations: number, gb: number][] = pipeline
    ? [
        [http - 1, LAMBDA_GB],
        [1, sizing.streamGb],
        [lambda.router ?? 0, LAMBDA_GB],
        [lambda.admission ?? 0, LAMBDA_GB],
        [lambda.generation ?? 0, sizing.generationGb],
        [lambda.tools ?? 0, LAMBDA_GB],
        [lambda.handlers ?? 0, LAMBDA_GB],
      ]
    : []
  const coldGbSeconds = (share: number) =>
    sum(byMemory.map(([count, gb]) => count * share * initSeconds(gb * 1024) * gb))
  const allGbSeconds = {
    ...gbSeconds,
    streamTail: sizing.streamGb * tailSeconds,
    init: coldGbSeconds(ASSUMED_COLD_SHARE),
  }
  const logBytes = pipeline
    ? {
        app: measured.logBytes,
        emf: emfBytes(measured.metricRecords, {
          'http POST': http - 1,
          'http GET': 1,
          'lane:admission': lambda.admission ?? 0,
          'lane:generation': lambda.generation ?? 0,
          'lane:tools': lambda.tools ?? 0,
          'lane:handlers': lambda.handlers ?? 0,
        }),
        platform: invocations * platformBytesPerInvocation(),
      }
    : { app: 0, emf: 0, platform: 0 }
  const restRequests = pipeline ? http : 0
  const wruOf = (list: Call[]) => sum(list.map((call) => call.wru))
  const cost: Record<string, number> = {
    DynamoDB: measured.wru * USD_PER_WRU + rru * USD_PER_RRU,
    'SQS FIFO': sqsBillable * USD_PER_SQS_FIFO_REQUEST,
    'Lambda requests': invocations * USD_PER_LAMBDA_REQUEST,
    [LAMBDA_COST_KEYS.code]: gbSeconds.code * USD_PER_ARM_GB_SECOND,
    [LAMBDA_COST_KEYS.generation]: gbSeconds.generation * USD_PER_ARM_GB_SECOND,
    [LAMBDA_COST_KEYS.stream]: gbSeconds.stream * USD_PER_ARM_GB_SECOND,
    [LAMBDA_COST_KEYS.streamTail]: allGbSeconds.streamTail * USD_PER_ARM_GB_SECOND,
    [LAMBDA_COST_KEYS.init]: allGbSeconds.init * USD_PER_ARM_GB_SECOND,
    [LAMBDA_COST_KEYS.logs]:
      ((logBytes.app + logBytes.emf + logBytes.platform) / 1024 ** 3) * USD_PER_LOG_GB,
    'EventBridge Scheduler':
      billed.filter((call) => call.op === 'CreateSchedule').length * USD_PER_SCHEDULER_INVOCATION,
    'API Gateway REST': restRequests * USD_PER_REST_REQUEST,
    'Data transfer out (SSE)': pipeline ? (measured.sseBytes / 1024 ** 3) * USD_PER_GB_OUT : 0,
  }
  return {
    operations,
    runnerOnly,
    functions,
    dynamoRequests: billed.filter((call) => call.service === 'DynamoDB').length,
    wru: measured.wru,
    rru,
    progressWru: wruOf(appends.filter((call) => call.events.includes('ai.generation.progress'))),
    progressOnly: (() => {
      const only = appends.filter(
        (call) =>
          call.events.length > 0 && call.events.every((type) => type === 'ai.generation.progress'),
      )
      return { appends: only.length, wru: wruOf(only) }
    })(),
    transactions: transactions.length,
    cancelled: transactions.filter((call) => call.error).length,
    events: events.length,
    progressEvents: events.filter((type) => type === 'ai.generation.progress').length,
    sqsRequests,
    sqsBillable,
    fastPathMessages: messagesSentBy('agent'),
    routerMessages: messagesSentBy('runner'),
    delivered: sum([...delivered.values()].map((ids) => ids.size)),
    lambda,
    lambdaRunner,
    gbSeconds: allGbSeconds,
    tailSeconds,
    getQueries: (() => {
      const queries = billed.filter((call) => call.fn === 'http GET' && call.op === 'Query')
      return { count: queries.length, rru: sum(queries.map((call) => call.rru)) }
    })(),
    logBytes,
    restRequests,
    sseBytes: measured.sseBytes,
    cost,
    seconds: measured.seconds,
  }
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : sum(values) / values.length
const sum = (values: readonly number[]): number => values.reduce((total, value) => total + value, 0)
const fmt = (value: number, digits = 1): string =>
  Number.isInteger(value) ? String(value) : value.toFixed(digits)
const usd = (value: number): string => `$${value.toFixed(4)}`
const pad = (text: string, width: number) => text.padStart(width)

function report(pipelineRuns: Measured[], baselineRuns: Measured[], beforeRuns: Measured[]): void {
  const turnsOf = (runs: Measured[], pipeline: boolean, which: 'first' | 'later' | 'all') =>
    runs
      .filter(
        (run) =>
          run.kind === 'turn' &&
          (which === 'all' || (which === 'first' ? run.turn === 1 : run.turn > 1)),
      )
      .map((run) => figuresOf(run, pipeline))
  const p = turnsOf(pipelineRuns, true, 'all')
  const pFirst = turnsOf(pipelineRuns, true, 'first')
  const pLater = turnsOf(pipelineRuns, true, 'later')
  const b = turnsOf(baselineRuns, false, 'all')
  const bFirst = turnsOf(baselineRuns, false, 'first')
  const bLater = turnsOf(baselineRuns, false, 'later')
  const columns = [pFirst, pLater, p, bFirst, bLater, b]
  const row = (label: string, get: (f: Figures) => number, digits = 1) =>
    console.log(
      `  ${label.padEnd(52)}${columns.map((list, n) => pad(fmt(mean(list.map(get)), digits), n === 3 ? 10 : 8)).join('')}`,
    )
  const header = (label: string) =>
    console.log(
      `  ${label.padEnd(52)}${pad('1st', 8)}${pad('later', 8)}${pad('all', 8)}${pad('base 1st', 10)}${pad('later', 8)}${pad('all', 8)}`,
    )

  console.log(
    `AWS requests per turn: ${SESSIONS} sessions x ${TURNS} turns per case on moto; a turn = a message, a tool call, ${CHUNKS} chunks ${CHUNK_DELAY_MS} ms apart`,
  )
  console.log(
    `(moto wall time per turn: pipeline ${fmt(mean(p.map((f) => f.seconds)))} s, baseline ${fmt(mean(b.map((f) => f.seconds)))} s; not used)`,
  )
  console.log('\nPipeline (1st turn, later turns, all) and baseline (embedded dispatch), per turn:')
  header('requests by operation')
  const keys = [...new Set([...p, ...b].flatMap((f) => [...f.operations.keys()]))].sort()
  for (const key of keys) row(key, (f) => f.operations.get(key)?.requests ?? 0)
  header('units and counts')
  row('DynamoDB requests', (f) => f.dynamoRequests)
  row('DynamoDB write request units (WRU)', (f) => f.wru)
  row('  of which appends of progress events', (f) => f.progressWru)
  row('appends of progress alone', (f) => f.progressOnly.appends)
  row('  WRU per append of progress alone', (f) =>
    f.progressOnly.appends === 0 ? 0 : f.progressOnly.wru / f.progressOnly.appends,
  )
  row('DynamoDB read request units (RRU)', (f) => f.rru)
  row('DynamoDB transactions', (f) => f.transactions)
  row('  of which cancelled', (f) => f.cancelled)
  row('events appended', (f) => f.events)
  row('  of which ai.generation.progress', (f) => f.progressEvents)
  row('SQS requests (billable 64 KB chunks the same)', (f) => f.sqsBillable)
  row('SQS messages sent by the fast path', (f) => f.fastPathMessages)
  row('SQS messages sent by the router', (f) => f.routerMessages)
  row('SQS messages delivered', (f) => f.delivered)
  row('Lambda invocations as deployed (estimate)', (f) => sum(Object.values(f.lambda)))
  row('Lambda invocations on the runner', (f) => sum(Object.values(f.lambdaRunner)))
  row('API Gateway requests', (f) => f.restRequests)
  row('KB streamed to the browser (SSE)', (f) => f.sseBytes / 1024)
  row('Lambda GB-s, our code (assumed)', (f) => f.gbSeconds.code, 2)
  row('Lambda GB-s, generation (model time, assumed)', (f) => f.gbSeconds.generation, 2)
  row('Lambda GB-s, GET stream (watch time, assumed)', (f) => f.gbSeconds.stream, 2)
  row('GET stream after the answer, s (measured)', (f) => f.tailSeconds, 2)
  row('Lambda GB-s, GET stream after the answer', (f) => f.gbSeconds.streamTail, 2)
  row(
    `Lambda GB-s, INIT (${ASSUMED_COLD_SHARE * 100}% of invocations cold)`,
    (f) => f.gbSeconds.init,
    4,
  )
  row('log bytes, our lines (measured)', (f) => f.logBytes.app, 0)
  row('log bytes, our EMF lines (rendered)', (f) => f.logBytes.emf, 0)
  row("log bytes, Lambda's own lines (assumed)", (f) => f.logBytes.platform, 0)
  const largest = Math.max(...[...pipelineRuns, ...baselineRuns].map((run) => run.largestUpdated))
  console.log(`  (largest item an update or condition check touched: ${largest} bytes)`)

  console.log('\nLambda invocations per turn by function: as deployed (estimate) / on the runner')
  const names = [...new Set(p.flatMap((f) => Object.keys(f.lambdaRunner)))]
  console.log(
    `  ${names.map((name) => `${name} ${fmt(mean(p.map((f) => f.lambda[name] ?? 0)))}/${fmt(mean(p.map((f) => f.lambdaRunner[name] ?? 0)))}`).join(', ')}`,
  )

  console.log('\nPipeline requests per turn by function (all turns):')
  printFunctions(p)

  const reconnects = pipelineRuns.filter((run) => run.kind === 'reconnect')
  if (reconnects.length > 0) {
    const r = reconnects.map((run) => figuresOf(run, true))
    const rb = baselineRuns
      .filter((run) => run.kind === 'reconnect')
      .map((run) => figuresOf(run, false))
    console.log(
      `\nA GET on an idle session (page load or reconnect), pipeline: ${fmt(mean(r.map((f) => f.dynamoRequests + f.sqsRequests)))} DynamoDB+SQS requests, ${fmt(mean(r.map((f) => f.wru)))} WRU, ${fmt(mean(r.map((f) => f.rru)))} RRU, ${fmt(mean(r.map((f) => sum(Object.values(f.lambda)))))} Lambda invocations; baseline ${fmt(mean(rb.map((f) => f.dynamoRequests)))} DynamoDB requests`,
    )
    printFunctions(r)
  }

  console.log('\nRunner-only requests per turn (no such bill when deployed):')
  const runnerKeys = [...new Set(p.flatMap((f) => [...f.runnerOnly.keys()]))].sort()
  console.log(
    `  ${runnerKeys.map((key) => `${key} ${fmt(mean(p.map((f) => f.runnerOnly.get(key) ?? 0)))}`).join(', ')}`,
  )

  console.log('\nCost per 1,000 turns, us-east-1 list prices, free tiers ignored:')
  console.log(
    `  ${'service'.padEnd(44)}${pad('1st', 10)}${pad('later', 10)}${pad('all', 10)}${pad('baseline', 10)}`,
  )
  const services = Object.keys(p[0]?.cost ?? {})
  const per1000 = (list: Figures[], service: string) =>
    1000 * mean(list.map((f) => f.cost[service] ?? 0))
  for (const service of services) {
    console.log(
      `  ${service.padEnd(44)}${[pFirst, pLater, p, b].map((list) => pad(usd(per1000(list, service)), 10)).join('')}`,
    )
  }
  const modelBound: string[] = [LAMBDA_COST_KEYS.generation, LAMBDA_COST_KEYS.stream]
  const total = (list: Figures[], exclude: string[] = []) =>
    sum(services.filter((s) => !exclude.includes(s)).map((s) => per1000(list, s)))
  console.log(
    `  ${'total'.padEnd(44)}${[pFirst, pLater, p, b].map((list) => pad(usd(total(list)), 10)).join('')}`,
  )
  console.log(
    `  ${'total without model and watch time'.padEnd(44)}${[pFirst, pLater, p, b].map((list) => pad(usd(total(list, modelBound)), 10)).join('')}`,
  )

  const perSecond = streamedSecond(p)
  reportAfterTheAnswer(p, perSecond)
  reportShapes(pFirst, pLater, total, perSecond)
  // The same run's baseline for issue 34: a session on the stream as it
  // was (no settled end) priced at the sizes before it.
  const before = beforeRuns
    .filter((run) => run.kind === 'turn')
    .map((run) => figuresOf(run, true, BEFORE_ISSUE_34))
  const beforeSecond = streamedSecond(before, BEFORE_ISSUE_34)
  console.log(
    `\nAgainst the stream and sizes before issue 34, measured in the same run (${before.length} turns of a session with stream.settledQuietMs false, priced at ${BEFORE_ISSUE_34.generationGb * 1024} MB generation, ${BEFORE_ISSUE_34.streamGb * 1024} MB stream; now ${SHIPPED.generationGb * 1024} MB and ${SHIPPED.streamGb * 1024} MB):`,
  )
  console.log(`  ${'per turn'.padEnd(52)}${pad('before', 10)}${pad('now', 10)}${pad('ratio', 8)}`)
  const compare = (label: string, then: number, now: number, show: (v: number) => string) =>
    console.log(
      `  ${label.padEnd(52)}${pad(show(then), 10)}${pad(show(now), 10)}${pad(`${(now / then).toFixed(2)}x`, 8)}`,
    )
  const two = (v: number) => fmt(v, 2)
  const m = (list: Figures[], get: (f: Figures) => number) => mean(list.map(get))
  compare(
    'GET stream after the answer, s',
    m(before, (f) => f.tailSeconds),
    m(p, (f) => f.tailSeconds),
    two,
  )
  compare(
    'DynamoDB requests',
    m(before, (f) => f.dynamoRequests),
    m(p, (f) => f.dynamoRequests),
    (v) => fmt(v),
  )
  compare(
    'DynamoDB RRU',
    m(before, (f) => f.rru),
    m(p, (f) => f.rru),
    (v) => fmt(v),
  )
  compare(
    'Lambda GB-s, GET stream (watch and after)',
    m(before, (f) => f.gbSeconds.stream + f.gbSeconds.streamTail),
    m(p, (f) => f.gbSeconds.stream + f.gbSeconds.streamTail),
    two,
  )
  compare(
    'Lambda GB-s, generation',
    m(before, (f) => f.gbSeconds.generation),
    m(p, (f) => f.gbSeconds.generation),
    two,
  )
  compare(
    'Lambda GB-s, INIT (cold starts)',
    m(before, (f) => f.gbSeconds.init),
    m(p, (f) => f.gbSeconds.init),
    (v) => fmt(v, 4),
  )
  compare('all-in per 1,000 turns', total(before), total(p), usd)
  compare(
    'per streamed second per 1,000 turns',
    1000 * beforeSecond.total,
    1000 * perSecond.total,
    usd,
  )
  compare('  of it Lambda', 1000 * beforeSecond.lambda, 1000 * perSecond.lambda, usd)

  const dataRequests = (f: Figures) => f.dynamoRequests + f.sqsRequests
  const dataCost = (list: Figures[]) => per1000(list, 'DynamoDB') + per1000(list, 'SQS FIFO')
  const ratios = {
    dynamoDBAndSqsRequests: mean(p.map(dataRequests)) / mean(b.map(dataRequests)),
    dynamoDBRequests: mean(p.map((f) => f.dynamoRequests)) / mean(b.map((f) => f.dynamoRequests)),
    dynamoDBAndSqsCost: dataCost(p) / dataCost(b),
    wruVsOnePutPerEvent: mean(p.map((f) => f.wru)) / mean(p.map((f) => f.events)),
  }
  console.log(
    '\nAgainst the baseline (same turns, same store, embedded dispatch: no SQS, no Lambda):',
  )
  console.log(
    `  DynamoDB + SQS requests per turn ${fmt(mean(p.map(dataRequests)))} vs ${fmt(mean(b.map(dataRequests)))}: ${ratios.dynamoDBAndSqsRequests.toFixed(2)}x`,
  )
  console.log(
    `  DynamoDB requests per turn ${fmt(mean(p.map((f) => f.dynamoRequests)))} vs ${fmt(mean(b.map((f) => f.dynamoRequests)))}: ${ratios.dynamoDBRequests.toFixed(2)}x`,
  )
  console.log(
    `  DynamoDB + SQS cost per 1,000 turns ${usd(dataCost(p))} vs ${usd(dataCost(b))}: ${ratios.dynamoDBAndSqsCost.toFixed(2)}x`,
  )
  console.log(
    `  WRU per event appended: ${ratios.wruVsOnePutPerEvent.toFixed(2)} (one PutItem of an event under 1 KB: 1)`,
  )
  const summary = (list: Figures[], sizing: Sizing = SHIPPED) => ({
    dynamoRequests: mean(list.map((f) => f.dynamoRequests)),
    wru: mean(list.map((f) => f.wru)),
    rru: mean(list.map((f) => f.rru)),
    transactions: mean(list.map((f) => f.transactions)),
    events: mean(list.map((f) => f.events)),
    sqsRequests: mean(list.map((f) => f.sqsBillable)),
    lambdaInvocations: mean(list.map((f) => sum(Object.values(f.lambda)))),
    costPer1000: total(list),
    costPer1000WithoutModelAndWatch: total(list, modelBound),
    usdPerStreamedSecondPer1000: 1000 * streamedSecond(list, sizing).total,
    usdPerStreamedSecondPer1000Lambda: 1000 * streamedSecond(list, sizing).lambda,
    streamAfterAnswerSeconds: mean(list.map((f) => f.tailSeconds)),
    logBytes: mean(list.map((f) => f.logBytes.app + f.logBytes.emf + f.logBytes.platform)),
    costPer1000Parts: Object.fromEntries(
      Object.keys(list[0]?.cost ?? {}).map((key) => [
        key,
        1000 * mean(list.map((f) => f.cost[key] ?? 0)),
      ]),
    ),
  })
  console.log(
    `BENCH_RESULT ${JSON.stringify({ bench: 'aws-requests', pipeline: { first: summary(pFirst), later: summary(pLater), all: summary(p) }, baseline: summary(b), beforeIssue34: summary(before, BEFORE_ISSUE_34), ratios, init, assumedColdShare: ASSUMED_COLD_SHARE, memoryMb: { stream: STREAM_GB * 1024, generation: GENERATION_GB * 1024, others: LAMBDA_GB * 1024 } })}`,
  )
}

/**
 * What one more second of the model's streaming costs a turn, in dollars,
 * computed from the measured turn: both functions waiting (the generation
 * function on the model, the GET stream on the log), the progress appends
 * of a streaming step (their measured WRU over the model's seconds), the
 * GET stream's tail polls at the store's rhythm while news comes (their
 * measured RRU per poll), and the SSE bytes (all of a turn's, over the
 * model's seconds: an upper bound).
 */
function streamedSecond(list: Figures[], sizing: Sizing = SHIPPED) {
  const seconds = MODEL_MS / 1000
  const polls = sum(list.map((f) => f.getQueries.count))
  const rruPerPoll = polls === 0 ? 1 : sum(list.map((f) => f.getQueries.rru)) / polls
  const parts = {
    generation: sizing.generationGb * USD_PER_ARM_GB_SECOND,
    stream: sizing.streamGb * USD_PER_ARM_GB_SECOND,
    progress: (mean(list.map((f) => f.progressOnly.wru)) / seconds) * USD_PER_WRU,
    tailPolls: (1000 / TAIL_POLL_MS) * rruPerPoll * USD_PER_RRU,
    sse: (mean(list.map((f) => f.sseBytes)) / seconds / 1024 ** 3) * USD_PER_GB_OUT,
  }
  return {
    parts,
    lambda: parts.generation + parts.stream,
    total: sum(Object.values(parts)),
  }
}

/** What a turn pays after its answer, and the figures behind it. */
function reportAfterTheAnswer(p: Figures[], perSecond: ReturnType<typeof streamedSecond>): void {
  const per1000 = (value: number) => usd(1000 * value)
  console.log('\nWhat a turn pays besides its requests (issue 34):')
  const tails = p.map((f) => f.tailSeconds)
  console.log(
    `  the GET stream after the answer (measured, the agent's shipped stream options, read to its own end): ${fmt(mean(tails), 2)} s mean (${tails.map((t) => fmt(t, 2)).join(', ')}), at ${STREAM_GB * 1024} MB ${per1000(mean(p.map((f) => f.cost[LAMBDA_COST_KEYS.streamTail] ?? 0)))} per 1,000 turns, its tail polls counted with the turn's reads`,
  )
  const logs = (get: (f: Figures) => number) => fmt(mean(p.map(get)), 0)
  console.log(
    `  logs per turn: ${logs((f) => f.logBytes.app)} bytes of our lines (measured: Powertools' lines of the handlers, the agent's console lines), ${logs((f) => f.logBytes.emf)} of EMF lines (the figures the handlers recorded, one line per invocation, as Powertools Metrics writes them), ${logs((f) => f.logBytes.platform)} of Lambda's own (assumed: ${platformBytesPerInvocation()} bytes per invocation); at $${USD_PER_LOG_GB} per GB ingested ${per1000(mean(p.map((f) => f.cost[LAMBDA_COST_KEYS.logs] ?? 0)))} per 1,000 turns`,
  )
  console.log(
    `  cold starts: the bundle ${fmt(init.bundleBytes / 1e6, 2)} MB, imported by a fresh Node in ${fmt(init.bundleMs, 0)} ms (median of ${INIT_ROUNDS}; a bare Node starts in ${fmt(init.bareMs, 0)} ms), ${fmt(init.rss / 2 ** 20, 0)} MB resident once loaded; INIT as CPU-bound on the memory's vCPU share: ${[STREAM_GB, GENERATION_GB, LAMBDA_GB].map((gb) => `${gb * 1024} MB ${fmt(initSeconds(gb * 1024), 2)} s`).join(', ')}`,
  )
  const cold = mean(p.map((f) => f.cost[LAMBDA_COST_KEYS.init] ?? 0))
  console.log(
    `  at ${ASSUMED_COLD_SHARE * 100}% of invocations cold (assumed): ${per1000(cold)} per 1,000 turns; at ${COLD_SHARE_HIGH * 100}%: ${per1000((cold * COLD_SHARE_HIGH) / ASSUMED_COLD_SHARE)}`,
  )
  const parts = perSecond.parts
  console.log(
    `  a second more of streaming, per 1,000 turns (computed): ${per1000(perSecond.total)} = generation function ${per1000(parts.generation)} (${GENERATION_GB * 1024} MB) + GET stream ${per1000(parts.stream)} (${STREAM_GB * 1024} MB) + progress appends ${per1000(parts.progress)} + tail polls ${per1000(parts.tailPolls)} + SSE bytes ${per1000(parts.sse)} (upper bound); Lambda alone ${per1000(perSecond.lambda)}; target at most $0.006: ${perSecond.total <= 0.006 / 1000 ? 'met' : 'MISSED'} (Lambda alone ${perSecond.lambda <= 0.006 / 1000 ? 'met' : 'MISSED'})`,
  )
}

/**
 * The cost of a turn by its shape: answers of 2, 10 and 30 s, sessions of
 * 1 and 10 turns. The 2-second turn is measured (a session's first turn
 * and its later ones); a longer answer adds the computed per-second terms;
 * a session of 10 turns is its first turn and 9 later ones.
 */
function reportShapes(
  first: Figures[],
  later: Figures[],
  total: (list: Figures[]) => number,
  perSecond: ReturnType<typeof streamedSecond>,
): void {
  const measuredSeconds = MODEL_MS / 1000
  const firstTurn = total(first) / 1000
  const laterTurn = total(later) / 1000
  console.log(
    '\nThe cost of a turn, all in, per 1,000 turns (2 s measured; longer answers add the computed per-second terms; a 10-turn session is its first turn and 9 later ones):',
  )
  const anchorHeads = ANCHORS.map((anchor) => pad(anchor.name, 30)).join('')
  console.log(
    `  ${'answer'.padEnd(10)}${pad('1-turn session', 16)}${pad('10-turn session', 17)}${anchorHeads}`,
  )
  const shapes: Record<string, Record<string, number>> = {}
  for (const seconds of [2, 10, 30]) {
    const extra = (seconds - measuredSeconds) * perSecond.total
    const one = 1000 * (firstTurn + extra)
    const ten = 1000 * ((firstTurn + 9 * laterTurn) / 10 + extra)
    shapes[`${seconds}s`] = { session1: one, session10: ten }
    const anchors = ANCHORS.map((anchor) =>
      pad(
        anchor.low === anchor.high ? usd(anchor.low) : `${usd(anchor.low)}-${usd(anchor.high)}`,
        30,
      ),
    ).join('')
    console.log(`  ${`${seconds} s`.padEnd(10)}${pad(usd(one), 16)}${pad(usd(ten), 17)}${anchors}`)
  }
  const twoSecond = shapes['2s']?.session10 ?? 0
  console.log(
    `  the 2-second answer, all in (the mean turn): ${usd(1000 * ((firstTurn + laterTurn) / 2))}; target at most $0.10: ${(firstTurn + laterTurn) / 2 <= 0.1 / 1000 ? 'met' : 'MISSED'} (10-turn session ${usd(twoSecond)})`,
  )
  console.log(
    `BENCH_RESULT ${JSON.stringify({ bench: 'aws-requests-shapes', shapes, usdPerStreamedSecondPer1000: 1000 * perSecond.total, parts: Object.fromEntries(Object.entries(perSecond.parts).map(([k, v]) => [k, 1000 * v])), anchors: ANCHORS })}`,
  )
}

function printFunctions(list: Figures[]): void {
  const names = [...new Set(list.flatMap((f) => [...f.functions.keys()]))].sort()
  for (const name of names) {
    const ops = [...new Set(list.flatMap((f) => [...(f.functions.get(name)?.keys() ?? [])]))].sort()
    console.log(
      `  ${name.padEnd(18)} ${ops.map((op) => `${op.replace(/^DynamoDB |^SQS /, '')} ${fmt(mean(list.map((f) => f.functions.get(name)?.get(op) ?? 0)))}`).join(', ')}`,
    )
  }
}

// ---------------------------------------------------------------------------
// A tab left open, and a tab closed (issue 12).

/** The stream function's timeout as deployed. */
const STREAM_TIMEOUT_MS = 30_000
/** Head checks in the run: shortened, then priced at the client's default interval. */
const RUN_CHECK_MS = 250
const RUN_CHECKS = 20
/**
 * The baseline, measured in the same run: the GET stream as it was before
 * (no quiet end, the 1024 MB function, a 900 s timeout), a tab that keeps it
 * open, and a tab that left it without Lambda saying so, watched this long.
 */
const TODAY_GB = LAMBDA_GB
const TODAY_TIMEOUT_MS = 900_000
const TODAY_WATCH_MS = 35_000
/** An API Gateway request, a Lambda request: what every head check pays besides its work. */
const USD_PER_CHECK_REQUESTS = USD_PER_REST_REQUEST + USD_PER_LAMBDA_REQUEST

interface TabRequest {
  kind: 'stream' | 'head' | 'post'
  at: number
  endedAt?: number
}

interface TabFigures {
  /** The stream's end for quiet after the answer: how long it ran, what it read. */
  quietTail: { seconds: number; calls: Call[] }
  /** Head checks while resting: how many, and every request in that window. */
  rest: { checks: number; calls: Call[]; streams: number; seconds: number }
  /** News from another client: ms from its POST to the tab, and from the check that saw it. */
  news: {
    totalMs: number
    afterCheckMs: number
    /** The requests the tab's functions made from that check to the news shown. */
    dynamoRequests: number
    dynamoMs: number
  }[]
  /** A closed tab's GET invocation: how long it ran on after the client left (and, on the quiet session, with the stream before issue 34). */
  closed: { idleMs: number; busyMs: number; signalledMs: number; idleUnsettledMs: number }
  /** The stream as it was: one held open by a tab that left, watched `TODAY_WATCH_MS`. */
  today: { watchedMs: number; endedMs: number | undefined; deadlineMs: number; calls: Call[] }
}

async function measureTabs(
  config: ConstructorParameters<typeof DynamoDBClient>[0],
  setup: { dynamodb: DynamoDBClient; sqs: SQSClient; scheduler: SchedulerClient },
  helpers: {
    finishedTurn: (tableName: string, sessionId: string, turn: number) => Promise<number>
  },
): Promise<TabFigures> {
  const resources = await createLocalResources(setup, {
    prefix: `a2-tabs-${Date.now().toString(36)}`,
  })
  const agentClients = {
    dynamodb: new DynamoDBClient(config ?? {}),
    sqs: new SQSClient(config ?? {}),
    scheduler: new SchedulerClient(config ?? {}),
  }
  const runnerClients = {
    dynamodb: new DynamoDBClient(config ?? {}),
    streams: new DynamoDBStreamsClient(config ?? {}),
    sqs: new SQSClient(config ?? {}),
    scheduler: new SchedulerClient(config ?? {}),
  }
  instrument(agentClients.dynamodb, 'agent', 'DynamoDB')
  instrument(agentClients.sqs, 'agent', 'SQS')
  instrument(runnerClients.dynamodb, 'runner', 'DynamoDB')
  instrument(runnerClients.sqs, 'runner', 'SQS')
  const aws = awsAgentParts({ environment: resources.environment, clients: agentClients })
  // The agent's stream options as shipped: quiet for 10 s ends a stream.
  const served: Agent = agent({
    name: 'bench',
    model: scriptedAgentModel(),
    tools,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
    logger: silent,
  })
  // The baseline: the same agent as the stream was before, its GET stream never ended for quiet.
  const today: Agent = agent({
    name: 'bench',
    model: scriptedAgentModel(),
    tools,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
    logger: silent,
    stream: { quietMs: false },
  })
  // Issue 34's baseline: the stream before its settled end (the full quiet after every turn).
  const unsettled: Agent = agent({
    name: 'bench',
    model: scriptedAgentModel(),
    tools,
    store: aws.store,
    dispatcher: aws.dispatcher,
    scheduler: aws.scheduler,
    logger: silent,
    stream: { settledQuietMs: false },
  })
  const unsettledHttp = httpHandler(unsettled, {
    logger: silent,
    httpResponseStream: streamingShim.HttpResponseStream,
  })
  const todayHttp = httpHandler(
    {
      ...today,
      fetch: (request: Request, options?: Parameters<Agent['fetch']>[1]) =>
        context.run({ fn: 'baseline GET' }, () => today.fetch(request, options)),
    },
    { logger: silent, httpResponseStream: streamingShim.HttpResponseStream },
  )
  let running = 0
  const fnOf = (request: Request) =>
    request.method !== 'GET'
      ? `http ${request.method}`
      : new URL(request.url).searchParams.has('head')
        ? 'head check'
        : 'http GET'
  const attributed = {
    ...served,
    fetch: (request: Request, options?: Parameters<Agent['fetch']>[1]) =>
      context.run({ fn: fnOf(request) }, () => served.fetch(request, options)),
    runtime: {
      ...served.runtime,
      run: (wakeUp: Parameters<Agent['runtime']['run']>[0]) =>
        context.run({ fn: `lane:${wakeUp.lane}` }, async () => {
          running++
          try {
            await served.runtime.run(wakeUp)
          } finally {
            running--
          }
        }),
    },
  }
  const streamEnds: { at: number; sessionId: string; durationMs: number; reason: string }[] = []
  const pipeline = await startLocalPipeline({
    agentModule: { default: attributed },
    environment: resources.environment,
    queues: resources.queues,
    clients: runnerClients,
    logger: {
      ...silent,
      info: (message: string, fields?: Record<string, unknown>) => {
        if (message === STREAM_ENDED) {
          streamEnds.push({
            at: Date.now(),
            sessionId: String(fields?.sessionId),
            durationMs: Number(fields?.durationMs),
            reason: String(fields?.reason),
          })
        }
      },
    },
  })
  // Quiet but for the tab's own head checks.
  const settle = async () => {
    const deadline = Date.now() + TURN_TIMEOUT_MS
    for (;;) {
      const last = calls.findLast((call) => deployed(call) && call.fn !== 'head check')?.at ?? 0
      if (running === 0 && Date.now() - last >= QUIET_MS) return
      if (Date.now() > deadline) throw new Error('the pipeline never went quiet')
      await sleep(100)
    }
  }
  try {
    // Sessions as the chat page opens them under the deployed default auth
    // (session tokens): `POST {}` answers a session and its token, and every
    // GET and POST carries the token. The tab's and the busy one's.
    const tabSession = await openSession(pipeline.url)
    const busySession = await openSession(pipeline.url)
    // The tab: a client as the chat page holds it, checking every RUN_CHECK_MS.
    const requests: TabRequest[] = []
    const tab = createAgentClient({
      api: pipeline.url,
      token: tabSession.token,
      idleCheckMs: RUN_CHECK_MS,
      fetch: async (input, init) => {
        const url = new URL(String(input))
        const request: TabRequest = {
          kind: init?.method === 'POST' ? 'post' : url.searchParams.has('head') ? 'head' : 'stream',
          at: Date.now(),
        }
        requests.push(request)
        const response = await fetch(input, init)
        if (request.kind !== 'stream' || !response.body) {
          request.endedAt = Date.now()
          return response
        }
        const body = response.body.pipeThrough(
          new TransformStream({
            flush: () => {
              request.endedAt = Date.now()
            },
          }),
        )
        return new Response(body, { status: response.status, headers: response.headers })
      },
    })
    const answeredChecks = () => requests.filter((r) => r.kind === 'head' && r.endedAt).length
    const session = tab.session(tabSession.sessionId)
    session.subscribe(() => {})
    await session.sendMessage('Where is my order A-42?')
    await helpers.finishedTurn(resources.environment.tableName, tabSession.sessionId, 1)
    const answered = Date.now()
    const fromAnswer = calls.length
    await until(() => requests.some((r) => r.kind === 'stream' && r.endedAt !== undefined), 30_000)
    const quietTail = {
      seconds: ((requests.find((r) => r.endedAt)?.endedAt ?? answered) - answered) / 1000,
      calls: calls.slice(fromAnswer).filter((call) => call.fn === 'http GET'),
    }
    await settle()

    // Resting: head checks only.
    // From one answered check to another: every request between them is the resting tab's.
    const checksBefore = answeredChecks()
    await until(() => answeredChecks() > checksBefore, 30_000)
    const restFrom = calls.length
    const restStarted = Date.now()
    await until(() => answeredChecks() >= checksBefore + 1 + RUN_CHECKS, 30_000)
    const rest = {
      checks: answeredChecks() - checksBefore - 1,
      calls: calls.slice(restFrom),
      streams: requests.filter((r) => r.kind === 'stream' && r.at >= restStarted).length,
      seconds: (Date.now() - restStarted) / 1000,
    }

    // News from elsewhere: another client appends a message that starts no turn.
    const other = createAgentClient({ api: pipeline.url, token: tabSession.token })
    const news: TabFigures['news'] = []
    for (let trial = 1; trial <= 2; trial++) {
      const before = session.getSnapshot().messages.length
      const sentAt = Date.now()
      await other
        .session(tabSession.sessionId)
        .sendMessage(`A note from elsewhere, ${trial}`, { generate: false })
      await until(() => session.getSnapshot().messages.length > before, 30_000)
      const seenAt = Date.now()
      const check = requests.findLast((r) => r.kind === 'head' && r.at <= seenAt)
      const checkAt = check?.at ?? sentAt
      const path = calls.filter(
        (call) =>
          call.service === 'DynamoDB' &&
          (call.fn === 'head check' || call.fn === 'http GET') &&
          call.at >= checkAt &&
          call.at <= seenAt,
      )
      news.push({
        totalMs: seenAt - sentAt,
        afterCheckMs: seenAt - checkAt,
        dynamoRequests: path.length,
        dynamoMs: Math.round(sum(path.map((call) => call.ms))),
      })
      // Back to rest: the reopened stream ends for quiet.
      const opened = requests.findLast((r) => r.kind === 'stream') as TabRequest
      await until(() => opened.endedAt !== undefined, 30_000)
      await settle()
    }
    other.dispose()
    tab.dispose()

    // Closed tabs, as Lambda may run them: the client is gone but nothing says
    // so; the frames go nowhere. One on a quiet session, one on a session an
    // internal service keeps appending to; and one whose disconnect is signalled.
    const store = dynamoDBEventStore({
      client: setup.dynamodb,
      tableName: resources.environment.tableName,
    })
    let ticking = true
    const ticker = (async () => {
      for (let n = 1; ticking; n++) {
        await store.append(busySession.sessionId, [
          { id: `tick-${n}`, type: 'bench.tick', payload: { n } },
        ])
        await sleep(1_000)
      }
    })()
    const [idle, busy, signalledMs, todayClosed, unsettledClosed] = await Promise.all([
      closedUnsignalled(pipeline.handlers.http, tabSession),
      closedUnsignalled(pipeline.handlers.http, busySession),
      closedSignalled(pipeline.url, tabSession, streamEnds),
      closedUnsignalled(todayHttp, tabSession, {
        timeoutMs: TODAY_TIMEOUT_MS,
        watchMs: TODAY_WATCH_MS,
      }),
      closedUnsignalled(unsettledHttp, tabSession),
    ])
    ticking = false
    await ticker
    return {
      quietTail,
      rest,
      news,
      closed: {
        idleMs: idle.endedMs ?? 0,
        busyMs: busy.endedMs ?? 0,
        signalledMs,
        idleUnsettledMs: unsettledClosed.endedMs ?? 0,
      },
      today: {
        watchedMs: TODAY_WATCH_MS,
        endedMs: todayClosed.endedMs,
        deadlineMs: TODAY_TIMEOUT_MS - DEADLINE_MARGIN_MS,
        calls: calls.filter(
          (call) =>
            call.fn === 'baseline GET' &&
            call.at >= todayClosed.closedAt &&
            call.at <= todayClosed.closedAt + TODAY_WATCH_MS,
        ),
      },
    }
  } finally {
    await pipeline.stop()
  }
}

/**
 * Runs the stream function's handler as Lambda may: a deadline, and a
 * response stream that takes every frame and never reports the client
 * leaving. The client "closes" once it has the head marker. Returns when
 * that was and how long the invocation ran on after it; with `watchMs`, an
 * invocation still running then is stopped (its stream reports a close)
 * and `endedMs` is left out.
 */
async function closedUnsignalled(
  http: Awaited<ReturnType<typeof startLocalPipeline>>['handlers']['http'],
  { sessionId, token }: OpenedTabSession,
  options: { timeoutMs?: number; watchMs?: number } = {},
): Promise<{ closedAt: number; endedMs?: number }> {
  const timeoutMs = options.timeoutMs ?? STREAM_TIMEOUT_MS
  const started = Date.now()
  let text = ''
  let closedAt: number | undefined
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString()
      if (closedAt === undefined && text.includes(': head ')) closedAt = Date.now()
      done()
    },
  })
  const event = {
    httpMethod: 'GET',
    path: '/agent',
    resource: '/agent',
    headers: {
      host: 'bench.local',
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    },
    multiValueHeaders: {},
    queryStringParameters: { sessionId },
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {},
  }
  const lambdaContext = {
    getRemainingTimeInMillis: () => timeoutMs - (Date.now() - started),
  }
  let ended = false
  const invocation = http(event as never, sink as never, lambdaContext as never).finally(() => {
    ended = true
  })
  const unopened = () =>
    new Error(`the closed tab's stream never sent its head: ${text.slice(0, 200) || '(nothing)'}`)
  if (options.watchMs !== undefined) {
    await until(() => closedAt !== undefined || ended, 30_000)
    if (closedAt === undefined) throw unopened()
    const watchEnd = (closedAt ?? started) + options.watchMs
    while (!ended && Date.now() < watchEnd) await sleep(100)
    if (!ended) {
      sink.destroy()
      await invocation
      return { closedAt }
    }
  }
  await invocation
  if (closedAt === undefined) throw unopened()
  return { closedAt, endedMs: Date.now() - closedAt }
}

/** A client that leaves a stream over HTTP (the runner's server sees the socket close). */
async function closedSignalled(
  url: string,
  { sessionId, token }: OpenedTabSession,
  ends: { at: number; sessionId: string }[],
): Promise<number> {
  const leave = new AbortController()
  const response = await fetch(`${url}?sessionId=${sessionId}`, {
    signal: leave.signal,
    headers: { authorization: `Bearer ${token}` },
  })
  if (response.status !== 200) throw new Error(`the closed tab's GET answered ${response.status}`)
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  let text = ''
  while (!text.includes(': head ')) {
    const next = await reader.read()
    if (next.done) break
    text += new TextDecoder().decode(next.value)
  }
  const seen = ends.length
  const closedAt = Date.now()
  leave.abort()
  await until(() => ends.slice(seen).some((end) => end.sessionId === sessionId), 30_000)
  const end = ends.slice(seen).find((candidate) => candidate.sessionId === sessionId)
  return (end?.at ?? closedAt) - closedAt
}

interface OpenedTabSession {
  sessionId: string
  token: string
}

/**
 * Opens a session as the chat page does under session tokens (the deployed
 * default): `POST {}`, answered with the session's ID and token. Without
 * the token every GET and POST of it answers 401 TOKEN_MISSING.
 */
async function openSession(url: string): Promise<OpenedTabSession> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  })
  if (response.status !== 201) {
    throw new Error(`POST {} answered ${response.status}: ${await response.text()}`)
  }
  return (await response.json()) as OpenedTabSession
}

async function until<T>(check: () => T, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = check()
    if (value) return value
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await sleep(20)
  }
}

function reportTabs(tabs: TabFigures): void {
  const billed = (list: Call[]) => list.filter(deployed)
  const dynamo = (list: Call[]) => billed(list).filter((call) => call.service === 'DynamoDB')
  const others = billed(tabs.rest.calls).filter((call) => call.fn !== 'head check')
  const checkCalls = dynamo(tabs.rest.calls).filter((call) => call.fn === 'head check')
  const perCheck = {
    dynamoRequests: checkCalls.length / tabs.rest.checks,
    rru: sum(checkCalls.map((call) => call.rru)) / tabs.rest.checks,
  }
  const checkGbSeconds =
    (STREAM_GB * (ASSUMED_INVOCATION_MS + perCheck.dynamoRequests * ASSUMED_REQUEST_MS)) / 1000
  const usdPerCheck =
    USD_PER_CHECK_REQUESTS + checkGbSeconds * USD_PER_ARM_GB_SECOND + perCheck.rru * USD_PER_RRU
  const tail = dynamo(tabs.quietTail.calls)
  const tailRru = sum(tail.map((call) => call.rru))
  const usdTail = tabs.quietTail.seconds * STREAM_GB * USD_PER_ARM_GB_SECOND + tailRru * USD_PER_RRU
  const checksPerHour = 3_600_000 / DEFAULT_IDLE_CHECK_MS
  const hiddenChecksPerHour = 3_600_000 / HIDDEN_CHECK_MS
  const usdSteadyHour = checksPerHour * usdPerCheck
  const usdFirstHour = usdSteadyHour + usdTail
  const usdHiddenHour = hiddenChecksPerHour * usdPerCheck
  const usd6 = (value: number) => `$${value.toFixed(6)}`
  // The baseline: the old stream held open for the hour, its tail polling
  // DynamoDB, a new invocation (and API Gateway request) at every deadline.
  const todayPolls = dynamo(tabs.today.calls)
  const perHour = 3_600_000 / tabs.today.watchedMs
  const todayInvocations = 3_600_000 / tabs.today.deadlineMs
  const todayHour = {
    duration: 3600 * TODAY_GB * USD_PER_ARM_GB_SECOND,
    reads: sum(todayPolls.map((call) => call.rru)) * perHour * USD_PER_RRU,
    requests: todayInvocations * USD_PER_CHECK_REQUESTS,
  }
  const usdTodayHour = todayHour.duration + todayHour.reads + todayHour.requests
  // From the check that sees the head moved to the news on the page, as
  // deployed: two round trips (the check, the stream), two invocations, the
  // DynamoDB requests on the way; moto's own latency is not AWS's.
  const deployedAfterCheckMs = (n: TabFigures['news'][number]) =>
    2 * ASSUMED_ROUND_TRIP_MS + 2 * ASSUMED_INVOCATION_MS + n.dynamoRequests * ASSUMED_REQUEST_MS
  const worstNewsMs = DEFAULT_IDLE_CHECK_MS + Math.max(...tabs.news.map(deployedAfterCheckMs))
  const worstNewsOnMotoMs =
    DEFAULT_IDLE_CHECK_MS + Math.max(...tabs.news.map((n) => n.afterCheckMs))

  console.log(
    `\nAn open, idle browser tab (the chat page client, the stream function at ${STREAM_GB * 1024} MB):`,
  )
  console.log(
    `  the stream after the answer: ended for quiet after ${fmt(tabs.quietTail.seconds, 2)} s (stream.quietMs ${DEFAULT_QUIET_MS / 1000} s), ${tail.length} DynamoDB requests (its tail polls), ${fmt(tailRru)} RRU: ${usd6(usdTail)}`,
  )
  console.log(
    `  resting, ${tabs.rest.checks} head checks over ${fmt(tabs.rest.seconds, 2)} s (every ${RUN_CHECK_MS} ms in this run): ${fmt(perCheck.dynamoRequests, 2)} DynamoDB request and ${fmt(perCheck.rru, 2)} RRU per check, ${tabs.rest.streams} streams opened, ${others.length} requests by anything else`,
  )
  console.log(
    `  per check: 1 API Gateway request, 1 Lambda invocation (${fmt(checkGbSeconds * 1000, 2)} GB-ms assumed at ${STREAM_GB * 1024} MB), the reads above: ${usd6(usdPerCheck)}`,
  )
  console.log(
    `  an hour, checking every ${DEFAULT_IDLE_CHECK_MS / 1000} s (${checksPerHour} checks): ${usd6(usdSteadyHour)}; the hour after a conversation (with the quiet end): ${usd6(usdFirstHour)}; a hidden tab (a check a minute): ${usd6(usdHiddenHour)}`,
  )
  console.log(
    `  baseline, the stream as it was (no quiet end, ${TODAY_GB * 1024} MB, ended at its deadline): ${todayPolls.length} DynamoDB requests (tail polls) in ${fmt(tabs.today.watchedMs / 1000)} s, ${fmt(todayPolls.length * perHour, 0)} an hour; an hour: duration ${usd6(todayHour.duration)} + reads ${usd6(todayHour.reads)} + ${fmt(todayInvocations, 2)} invocations ${usd6(todayHour.requests)} = ${usd6(usdTodayHour)}`,
  )
  console.log(
    `  against the baseline: ${(usdFirstHour / usdTodayHour).toFixed(3)}x, 1/${fmt(usdTodayHour / usdFirstHour, 0)} (steady ${(usdSteadyHour / usdTodayHour).toFixed(3)}x, hidden ${(usdHiddenHour / usdTodayHour).toFixed(4)}x); target at most $0.002 an hour: ${usdFirstHour <= 0.002 ? 'met' : 'MISSED'}`,
  )
  console.log(
    `  news from another client reached the resting tab ${tabs.news.map((n) => `${n.totalMs} ms after its POST (${n.afterCheckMs} ms after the check that saw it, ${n.dynamoRequests} DynamoDB requests taking ${n.dynamoMs} ms on moto)`).join(', ')}`,
  )
  console.log(
    `  at the default interval, news waits at most ${DEFAULT_IDLE_CHECK_MS / 1000} s for a check, then as deployed (assumed: ${ASSUMED_ROUND_TRIP_MS} ms a round trip, the requests above) ${Math.max(...tabs.news.map(deployedAfterCheckMs))} ms: within ${fmt(worstNewsMs / 1000, 2)} s (target 10 s: ${worstNewsMs <= 10_000 ? 'met' : 'MISSED'}; with moto's latency ${fmt(worstNewsOnMotoMs / 1000, 2)} s)`,
  )
  console.log('\nA closed tab (the client leaves once it has the head marker):')
  console.log(
    `  Lambda never signals the disconnect: a quiet session's invocation ran on ${fmt(tabs.closed.idleMs / 1000, 2)} s (its quiet end; ${fmt(tabs.closed.idleUnsettledMs / 1000, 2)} s on the stream before issue 34's settled end, ${(tabs.closed.idleMs / tabs.closed.idleUnsettledMs).toFixed(2)}x), a session still being written ${fmt(tabs.closed.busyMs / 1000, 2)} s (the deadline, ${(STREAM_TIMEOUT_MS - DEADLINE_MARGIN_MS) / 1000} s after it opened); the function's 30 s timeout caps either`,
  )
  console.log(
    `  the disconnect signalled (the runner's HTTP server): ended ${tabs.closed.signalledMs} ms after the client left`,
  )
  const todayEnded =
    tabs.today.endedMs === undefined
      ? `still running after ${fmt(tabs.today.watchedMs / 1000)} s (stopped there; it ends at its deadline, ${tabs.today.deadlineMs / 1000} s after it opened)`
      : `ended after ${fmt(tabs.today.endedMs / 1000, 2)} s`
  const longestMs = Math.max(tabs.closed.idleMs, tabs.closed.busyMs)
  console.log(`  baseline, the stream as it was (no quiet end, 900 s timeout): ${todayEnded}`)
  console.log(
    `  Lambda duration of the longest: ${usd6((longestMs / 1000) * STREAM_GB * USD_PER_ARM_GB_SECOND)} (baseline ${tabs.today.deadlineMs / 1000} s at ${TODAY_GB * 1024} MB: ${usd6((tabs.today.deadlineMs / 1000) * TODAY_GB * USD_PER_ARM_GB_SECOND)}); target within 30 s: ${longestMs <= 30_000 ? 'met' : 'MISSED'}`,
  )
  console.log(
    `BENCH_RESULT ${JSON.stringify({
      bench: 'aws-requests-tabs',
      idle: {
        quietTailSeconds: tabs.quietTail.seconds,
        quietTailDynamoRequests: tail.length,
        checksInRun: tabs.rest.checks,
        dynamoRequestsPerCheck: perCheck.dynamoRequests,
        rruPerCheck: perCheck.rru,
        streamsWhileResting: tabs.rest.streams,
        otherRequestsWhileResting: others.length,
        usdPerCheck,
        usdSteadyHour,
        usdFirstHour,
        usdHiddenHour,
        usdBaselineHour: usdTodayHour,
        baselinePollsPerHour: todayPolls.length * perHour,
        ratioToBaseline: usdFirstHour / usdTodayHour,
        news: tabs.news,
        worstNewsMs,
        worstNewsOnMotoMs,
      },
      closed: {
        ...tabs.closed,
        baselineEndedMs: tabs.today.endedMs ?? null,
        baselineWatchedMs: tabs.today.watchedMs,
        baselineDeadlineMs: tabs.today.deadlineMs,
      },
    })}`,
  )
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface StreamRead {
  types: string[]
  comments: string[]
  bytes: number
  /** When the read ended (`performance.now()`). */
  endedAt: number
}

/** Reads an SSE response until `done` says so, then leaves (cancels the body), as a browser tab closing. */
async function readStream(
  response: Response,
  done: (read: StreamRead) => boolean,
  options: { toEnd?: boolean } = {},
): Promise<StreamRead> {
  const read: StreamRead = { types: [], comments: [], bytes: 0, endedAt: 0 }
  let ended = false
  const parser = createParser({
    onEvent: (message) => read.types.push((JSON.parse(message.data) as StoredEvent).type),
    onComment: (comment) => read.comments.push(comment),
  })
  const reader = (response.body as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    reader.cancel().catch(() => undefined)
  }, TURN_TIMEOUT_MS)
  try {
    while (!done(read)) {
      const next = await reader.read()
      if (next.done) {
        ended = true
        break
      }
      read.bytes += next.value.byteLength
      parser.feed(decoder.decode(next.value, { stream: true }))
    }
  } finally {
    read.endedAt = performance.now()
    clearTimeout(timer)
    await reader.cancel().catch(() => undefined)
  }
  if (timedOut) throw new Error('the stream timed out')
  if (options.toEnd ? !ended : !done(read)) throw new Error('the stream ended early')
  return read
}

await main()
