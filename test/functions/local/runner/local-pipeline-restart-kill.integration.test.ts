import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DynamoDBClient } from '@aws-sdk/client-dynamodb'
import { ListSchedulesCommand, SchedulerClient } from '@aws-sdk/client-scheduler'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MotoServer, startMotoServer } from '../../../../functions/local/runner/moto-server.ts'
import type { OpenedSession } from '../../../../shared/http/log-endpoint.ts'
import type { StoredEvent } from '../../../../shared/log/event.ts'
import type { EventStore } from '../../../../shared/log/event-store.ts'
import { initialAIState } from '../../../../shared/model/state/ai-state.ts'
import { reduceAIState } from '../../../../shared/model/state/reduce-ai-state.ts'
import { dynamoDBEventStore } from '../../../../shared/stores/dynamodb/dynamodb-event-store.ts'
import { sleep } from '../../../../shared/timing/sleep.ts'
import { awsEndpoint, resetMotoForSuite } from '../../../support/aws.ts'
import { type RunnerProcess, startRunnerProcess } from '../../../support/local-runner-process.ts'
import { repoRoot as root } from '../../../support/repo-root.ts'

// `npm run local`'s runner killed with SIGKILL in the middle of a tool turn
// and started again on the same endpoint, with nobody reading the session:
// the restarted runner must finish the turn by itself, as SQS redelivers
// what the dead process held once its lease ends. The runner is the
// process `npm run local` runs, with the example agent (test/support/
// kill-points-agent.ts: the same agent, which says where it is and holds
// there when asked, so that a kill lands at a point and not after it). The
// session is only read from the table, never through the API: a reader
// opening the stream would wake it. Every request the runners make goes
// through a tap, which can kill a runner the moment SQS hands it a message.
//
// In `npm test`, the point the issue found (issue 37, item 7): the tool's
// result is recorded, with the next model step's request, and the runner
// has just received that step's wake-up. With A2_CRASH_MATRIX=all, every
// point of the turn, each measured on its own (`npm run test:crash-restart`).

const matrix = process.env.A2_CRASH_MATRIX === 'all'
/**
 * Recovery takes a lease (30 s, `VISIBILITY_LEASE`) and a claim TTL (30 s),
 * which run out together, plus the runner's restart; this is slack for a
 * loaded machine. Without a lease on what it received, the queue's own
 * visibility timeout (an hour for the generation queue) would pass first.
 */
const RECOVERY_BOUND_MS = 90_000

let moto: MotoServer | undefined
let endpoint = ''
let tap: ReceiveTap | undefined
let store: EventStore | undefined
let scheduler: SchedulerClient | undefined
/** Sessions asked so far: each sets one timer, whatever the kill made run again. */
let sessions = 0
const dir = mkdtempSync(join(tmpdir(), 'a2-local-kill-'))
const holdFile = join(dir, 'hold-at')
const runners: RunnerProcess[] = []
let runner: RunnerProcess | undefined
/** Lines the current runner printed, for the points it reports. */
let lines: string[] = []

beforeAll(async () => {
  await resetMotoForSuite()
  const shared = awsEndpoint()
  if (shared === 'aws') moto = await startMotoServer()
  endpoint = moto?.endpoint ?? shared
  tap = await receiveTap(endpoint)
  const config = {
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  }
  store = dynamoDBEventStore({ client: new DynamoDBClient(config), tableName: 'a2-local-events' })
  scheduler = new SchedulerClient(config)
  writeFileSync(holdFile, '')
  runner = await start()
})

afterAll(async () => {
  for (const each of runners) await each.stop()
  await tap?.close()
  moto?.stop()
})

async function start(): Promise<RunnerProcess> {
  const started = await startRunnerProcess({
    dir,
    endpoint: (tap as ReceiveTap).endpoint,
    agentModule: join(root, 'test/support/kill-points-agent.ts'),
    env: { A2_KILL_POINTS_FILE: holdFile },
  })
  runners.push(started)
  lines = []
  started.onLine((line) => lines.push(line))
  return started
}

const log = (sessionId: string): Promise<StoredEvent[]> => (store as EventStore).read(sessionId)

interface ReceiveTap {
  /** Where the runner sends its requests; they go on to the emulator. */
  endpoint: string
  /**
   * Sees each ReceiveMessage answer before the runner does; answering true
   * drops it (the runner is dead by then).
   */
  onReceived?: (answer: { Messages?: { Body?: string }[] }) => Promise<boolean>
  close(): Promise<void>
}

/** An HTTP proxy in front of the emulator that shows the test what SQS hands out. */
async function receiveTap(target: string): Promise<ReceiveTap> {
  const upstream = new URL(target)
  const forward = (
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const outgoing = request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method,
          path,
          headers: { ...headers, host: upstream.host },
        },
        async (response) => {
          const chunks: Buffer[] = []
          for await (const chunk of response) chunks.push(chunk as Buffer)
          resolve({
            status: response.statusCode ?? 500,
            headers: response.headers,
            body: Buffer.concat(chunks),
          })
        },
      )
      outgoing.once('error', reject)
      outgoing.end(body)
    })
  const self: ReceiveTap = {
    endpoint: '',
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
  const server: Server = createServer(async (incoming, outgoing) => {
    try {
      const chunks: Buffer[] = []
      for await (const chunk of incoming) chunks.push(chunk as Buffer)
      const answer = await forward(
        incoming.method ?? 'GET',
        incoming.url ?? '/',
        incoming.headers,
        Buffer.concat(chunks),
      )
      const receive = incoming.headers['x-amz-target'] === 'AmazonSQS.ReceiveMessage'
      if (receive && answer.status === 200 && self.onReceived) {
        if (await self.onReceived(JSON.parse(answer.body.toString() || '{}'))) {
          outgoing.destroy()
          return
        }
      }
      const { 'transfer-encoding': _chunked, ...headers } = answer.headers
      outgoing.writeHead(answer.status, { ...headers, 'content-length': answer.body.length })
      outgoing.end(answer.body)
    } catch {
      // The runner died mid-request, or the emulator did: nobody waits for an answer.
      outgoing.destroy()
    }
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
  const address = server.address()
  self.endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`
  return self
}

/** Where a trial kills the runner, and how it knows it is there. */
type KillPoint =
  | { name: string; hold: string }
  | { name: string; logged: string }
  | { name: string; received: 'next-step' }

const POINTS: KillPoint[] = [
  { name: 'before the first chunk', hold: 'before-first-chunk' },
  { name: 'mid-stream', hold: 'mid-stream' },
  { name: 'as its tool starts', hold: 'tool-started' },
  { name: "once the tool's effect landed", hold: 'effect-landed' },
  { name: 'after the tool returned', hold: 'tool-returned' },
  // As the issue killed it: as soon as a poll of the table sees the result.
  { name: "after the tool's result is recorded", logged: 'ai.tool.result' },
  {
    name: "after the tool's result is recorded, the next step's wake-up just received",
    received: 'next-step',
  },
]

const json = { 'content-type': 'application/json' }

async function openSession(url: string): Promise<OpenedSession> {
  const opened = (await (
    await fetch(url, { method: 'POST', headers: json, body: '{}' })
  ).json()) as OpenedSession
  return opened
}

async function ask(url: string, session: OpenedSession, text: string): Promise<void> {
  const id = `m1-${session.sessionId}`
  const response = await fetch(`${url}?sessionId=${session.sessionId}`, {
    method: 'POST',
    headers: { ...json, authorization: `Bearer ${session.token}` },
    body: JSON.stringify({
      events: [
        {
          id,
          type: 'ai.control.requested',
          payload: {
            action: 'message',
            generate: true,
            message: { id, role: 'user', parts: [{ type: 'text', text }] },
          },
        },
      ],
    }),
  })
  expect(response.status).toBe(200)
}

/** Kills the runner once the session reaches `point`. */
async function killAt(point: KillPoint, sessionId: string): Promise<void> {
  const current = runner as RunnerProcess
  if ('received' in point) {
    // The tool's result and the next step's request are one write; its
    // wake-up follows. Killed the moment SQS hands that wake-up over.
    let killed: () => void = () => {}
    const done = new Promise<void>((resolve) => {
      killed = resolve
    })
    ;(tap as ReceiveTap).onReceived = async (answer) => {
      const wakesStep = (answer.Messages ?? []).some(
        (message) =>
          message.Body?.includes(`"sessionId":"${sessionId}"`) &&
          message.Body.includes('"lane":"generation"'),
      )
      if (!wakesStep) return false
      if (!(await log(sessionId)).some((event) => event.type === 'ai.tool.result')) return false
      ;(tap as ReceiveTap).onReceived = undefined
      await current.kill()
      killed()
      return true
    }
    await done
    return
  }
  for (;;) {
    if ('hold' in point && lines.includes(`a2-kill-point ${point.hold} ${sessionId}`)) break
    if ('logged' in point && (await log(sessionId)).some((event) => event.type === point.logged))
      break
    await sleep(5)
  }
  await current.kill()
}

interface Trial {
  point: string
  /** The log's last event when the runner died. */
  killedAfter: string
  restartMs: number
  /** From the kill to the first event appended after it. */
  firstEventMs: number
  /** From the kill to the turn's end. */
  endMs: number
  events: StoredEvent[]
}

async function trial(point: KillPoint): Promise<Trial> {
  const session = await openSession((runner as RunnerProcess).url)
  sessions++
  const { sessionId } = session
  if ('hold' in point) writeFileSync(holdFile, `${point.hold} ${sessionId}\n`)
  // A message without approval: the model calls setReminder, which sets a
  // timer (its effect: past SQS's 15-minute delay, a Scheduler schedule,
  // named after the call) and returns; the next step answers with its result.
  await ask(
    (runner as RunnerProcess).url,
    session,
    `remind me in 20 minutes to stretch (for ${sessionId})`,
  )
  await killAt(point, sessionId)
  const killedAt = Date.now()
  // The next run does not hold: the test has killed where it meant to.
  writeFileSync(holdFile, '')
  const atKill = await log(sessionId)
  runner = await start()
  const restartMs = Date.now() - killedAt
  let firstEventMs: number | undefined
  for (;;) {
    const events = await log(sessionId)
    const elapsed = Date.now() - killedAt
    if (firstEventMs === undefined && events.length > atKill.length) firstEventMs = elapsed
    const state = events.reduce(reduceAIState, initialAIState())
    const last = state.messages.at(-1)
    if (!state.active && last?.role === 'assistant' && last.parts.length > 0) {
      return {
        point: point.name,
        killedAfter: atKill.at(-1)?.type ?? 'nothing',
        restartMs,
        firstEventMs: firstEventMs ?? elapsed,
        endMs: elapsed,
        events,
      }
    }
    if (elapsed > RECOVERY_BOUND_MS) {
      throw new Error(
        `${point.name}: the turn did not end within ${RECOVERY_BOUND_MS / 1000} s of the kill, with no reader; the log ends ${events
          .slice(-3)
          .map((event) => `${event.index}:${event.type}`)
          .join(', ')}`,
      )
    }
    await sleep(250)
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

describe('npm run local killed with SIGKILL mid-turn and started again, with no reader', () => {
  const points = matrix ? POINTS : POINTS.filter((point) => 'received' in point)
  for (const point of points) {
    it(
      `Given a tool turn, When the runner is killed ${point.name} and started again on the same endpoint, Then the restarted runner finishes the turn by itself within ${RECOVERY_BOUND_MS / 1000} s, the tool's result recorded and its timer set once`,
      async () => {
        const run = await trial(point)
        console.info(
          `killed ${run.point} (the log ending ${run.killedAfter}): restarted in ${seconds(run.restartMs)}, the first event ${seconds(run.firstEventMs)} after the kill, the turn ended ${seconds(run.endMs)} after it`,
        )
        if ('received' in point || 'logged' in point) {
          // The kill came after the write of the result and the next request.
          expect(run.killedAfter).toBe('ai.generation.requested')
        }
        const results = run.events.filter((event) => event.type === 'ai.tool.result')
        expect(results).toHaveLength(1)
        // The tool's effect once: a call run again sets the same schedule, by name.
        const { Schedules = [] } = await (scheduler as SchedulerClient).send(
          new ListSchedulesCommand({ GroupName: 'a2-local-timers' }),
        )
        expect(Schedules).toHaveLength(sessions)
        const answer = run.events.reduce(reduceAIState, initialAIState()).messages.at(-1)
        expect(JSON.stringify(answer?.parts)).toContain('Done. The tool answered')
      },
      RECOVERY_BOUND_MS + 60_000,
    )
  }
})
